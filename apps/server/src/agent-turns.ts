import { randomBytes } from 'node:crypto';
import {
  type AgentMemory,
  normalizeSenderId,
  type PromptLayerVersion,
  type Store,
} from '@rlm/memory';
import { assemblePrompt } from '@rlm/prompts';
import { type JsonValue, RlmError, type UsageSummary } from '@rlm/protocol';
import { type AgentMessageRequest, type AgentRecord, layerAuthor } from './agent-record.js';
import type { Principal } from './api-key-store.js';
import type { ContextStore } from './context-store.js';
import { effectiveBudget } from './effective-budget.js';
import { ownProfile } from './own-profile.js';
import type { EngineTool } from './run-engine.js';
import type { RunManager } from './run-manager.js';
import type { RunOutcome } from './run-outcome.js';
import type { ServerConfig } from './server-config.js';

/** Exchanges per sender shown in layer 10. */
const HISTORY_EXCHANGES = 5;
/** Characters of working memory recalled into layer 10. */
const RECALL_BUDGET_CHARS = 1_500;

/** What one agent turn returns. */
export interface AgentTurnResult {
  reply: string;
  runId: string;
  status: RunOutcome['status'];
  usage: UsageSummary;
  /** Version of the assembled layered prompt this turn used. */
  promptVersion: string;
  /** The layer the agent rewrote this turn, if it did. */
  layerUpdate: PromptLayerVersion | null;
}

export interface AgentTurns {
  /** Runs one turn; turns of one agent run one at a time so histories stay consistent. */
  run(
    principal: Principal,
    agent: AgentRecord,
    message: AgentMessageRequest,
  ): Promise<AgentTurnResult>;
}

export interface AgentTurnsOptions {
  store: Store;
  runs: RunManager;
  contexts: ContextStore;
  config: ServerConfig;
}

/** Creates the agent turn runner over the store's per-agent memory and the run manager. */
export function createAgentTurns(options: AgentTurnsOptions): AgentTurns {
  const queues = new Map<string, Promise<unknown>>();
  return {
    run(principal, agent, message) {
      const previous = queues.get(agent.id) ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(() => runTurn(options, { principal, agent, message }));
      queues.set(agent.id, next);
      void next
        .catch(() => undefined)
        .finally(() => {
          if (queues.get(agent.id) === next) queues.delete(agent.id);
        });
      return next;
    },
  };
}

async function runTurn(
  { store, runs, contexts, config }: AgentTurnsOptions,
  {
    principal,
    agent,
    message,
  }: { principal: Principal; agent: AgentRecord; message: AgentMessageRequest },
): Promise<AgentTurnResult> {
  const memory = store.forAgent(agent.id);
  const sender = normalizeSenderId(message.sender);
  const turn: { runId?: string } = {};
  const layerTool = updatePromptLayerTool(memory, { agentId: agent.id, sender, turn });
  const prompt = await layeredPrompt(memory, agent, { sender, body: message.body });
  const profile = ownProfile(config, agent.profile);
  if (profile === undefined) {
    throw new RlmError({
      code: 'server.unavailable',
      message: `Agent ${agent.id} uses profile "${agent.profile}", which is no longer configured`,
      details: { reason: 'profile removed' },
    });
  }
  const context: JsonValue = { sender, message: message.body };
  const { record, done } = await runs.submit({
    principal,
    kind: 'agent',
    agentId: agent.id,
    query: `Reply to the pending message from ${sender} (layer 10 of your instructions; also in \`context\`). Finish with FINAL(<your reply>).`,
    inlineContext: context,
    profileName: agent.profile,
    budget: effectiveBudget(profile, undefined, config.maxima),
    systemPrompt: prompt.text,
    tools: { update_prompt_layer: layerTool.tool },
  });
  turn.runId = record.id;
  const outcome = await done;
  const reply = outcome.answer ?? outcome.partialAnswer ?? '';
  if (reply !== '') {
    await memory.conversations.append(sender, {
      messageId: `msg_${randomBytes(8).toString('hex')}`,
      senderBody: message.body,
      agentReply: reply,
      turnId: record.id,
    });
    await memory.workingMemory.add({
      kind: 'episode',
      content: `${sender} wrote: ${message.body.slice(0, 300)} | replied: ${reply.slice(0, 300)}`,
      tags: [senderTag(sender)],
      source: `turn:${record.id}`,
    });
  }
  return {
    reply,
    runId: record.id,
    status: outcome.status,
    usage: outcome.usage,
    promptVersion: prompt.version,
    layerUpdate: layerTool.applied(),
  };
}

/** Working-memory items are tagged by sender so one sender's episodes never reach another's turn. */
function senderTag(sender: string): string {
  return `sender:${sender}`;
}

async function layeredPrompt(
  memory: AgentMemory,
  agent: AgentRecord,
  { sender, body }: { sender: string; body: string },
) {
  const mutable = Object.fromEntries(
    (await memory.promptLayers.current()).map((layer) => [layer.layerId, layer.content]),
  );
  const history = await memory.conversations.recent(sender, HISTORY_EXCHANGES);
  const recalled = await memory.workingMemory.retrieve({
    query: body,
    budgetChars: RECALL_BUDGET_CHARS,
    tags: [senderTag(sender)],
  });
  return assemblePrompt({
    mutable,
    identityTag: agent.identityTag ?? undefined,
    dynamic: {
      state: { agent: agent.id },
      pendingMessages: [{ sender, text: body, at: new Date().toISOString() }],
      // Only this sender's conversation is passed: the other senders' histories never enter the prompt.
      conversations: [
        {
          sender,
          messages: history.flatMap((exchange) => [
            {
              role: 'user' as const,
              text: exchange.senderBody,
              at: new Date(exchange.at).toISOString(),
            },
            { role: 'assistant' as const, text: exchange.agentReply },
          ]),
        },
      ],
      recentMemory: recalled.items.map((item) => ({ text: item.content, source: item.source })),
      tools: [{ name: 'update_prompt_layer', description: UPDATE_PROMPT_LAYER_DESCRIPTION }],
    },
  });
}

const UPDATE_PROMPT_LAYER_DESCRIPTION =
  'update_prompt_layer(layerId, content): rewrite one of your mutable layers 6-9 (validated; at most once per turn). Resolves { ok, layerId, version } or { ok: false, error }.';

/**
 * The REPL function `update_prompt_layer`, limited to one attempt per turn. It writes through the
 * same store and policy as an admin's update (every check, the whole-prompt size included), and
 * the version records the sender whose message started the turn.
 */
function updatePromptLayerTool(
  memory: AgentMemory,
  { agentId, sender, turn }: { agentId: string; sender: string; turn: { runId?: string } },
) {
  let attempted = false;
  let applied: PromptLayerVersion | null = null;
  const tool: EngineTool = {
    description: UPDATE_PROMPT_LAYER_DESCRIPTION,
    async call([layerId, content]) {
      if (attempted) {
        return refusal(
          'prompts.layer_invalid',
          'update_prompt_layer may be called at most once per turn',
        );
      }
      attempted = true;
      if (typeof layerId !== 'number' || typeof content !== 'string') {
        return refusal(
          'prompts.layer_invalid',
          'expected update_prompt_layer(layerId: number, content: string)',
        );
      }
      try {
        const by = layerAuthor({ agentId, sender, runId: turn.runId ?? 'unknown' });
        applied = await memory.promptLayers.update(layerId, content, { by });
        return { ok: true, layerId, version: applied.version };
      } catch (error) {
        if (RlmError.is(error)) return refusal(error.code, error.message);
        throw error;
      }
    },
  };
  return { tool, applied: () => applied };
}

function refusal(code: string, message: string): JsonValue {
  return { ok: false, error: { code, message } };
}
