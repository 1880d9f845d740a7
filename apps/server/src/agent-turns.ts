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
import type { AgentRegistry } from './agent-registry.js';
import type { Principal } from './api-key-store.js';
import type { ContextStore } from './context-store.js';
import { effectiveBudget } from './effective-budget.js';
import { newRunId } from './new-run-id.js';
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
  /**
   * Runs one turn; turns of one agent run one at a time so histories stay consistent. The agent
   * is looked up again when the turn's time comes, so a turn queued behind a deletion gets 404.
   * @throws RlmError `server.not_found` when the agent is gone by then
   */
  run(
    principal: Principal,
    agent: AgentRecord,
    message: AgentMessageRequest,
  ): Promise<AgentTurnResult>;
  /**
   * Deletes the agent: its registration at once (new messages get 404), then, after the turns
   * already in progress, everything stored for it (conversations, prompt layers, scratchpad,
   * working memory). Resolves once all of it is gone; the agent's runs stay, owned by their keys.
   */
  remove(agent: AgentRecord): Promise<void>;
}

export interface AgentTurnsOptions {
  store: Store;
  agents: AgentRegistry;
  /**
   * Runs `task` while no other turn of the agent runs anywhere (replicas: a lock in the shared
   * database). Turns of one agent in this process are queued before it in any case.
   */
  exclusive?: <T>(agentId: string, task: () => Promise<T>) => Promise<T>;
  runs: RunManager;
  contexts: ContextStore;
  config: ServerConfig;
}

/** Creates the agent turn runner over the store's per-agent memory and the run manager. */
export function createAgentTurns(options: AgentTurnsOptions): AgentTurns {
  const queues = new Map<string, Promise<unknown>>();
  /** Runs `task` after everything queued for the agent before it. */
  const { exclusive } = options;
  function inTurn<T>(agentId: string, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(agentId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => (exclusive === undefined ? task() : exclusive(agentId, task)));
    queues.set(agentId, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (queues.get(agentId) === next) queues.delete(agentId);
      });
    return next;
  }
  return {
    run(principal, agent, message) {
      return inTurn(agent.id, async () => {
        const current = await options.agents.owned(principal, agent.id);
        return runTurn(options, { principal, agent: current, message });
      });
    },
    async remove(agent) {
      await options.agents.remove(agent);
      await inTurn(agent.id, () => options.store.deleteAgent(agent.id));
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
  // Named before the run exists, so a self-edit made at any point of the turn records its run.
  const runId = newRunId();
  const layerTool = updatePromptLayerTool(memory, { agentId: agent.id, sender, runId });
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
    runId,
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
  { agentId, sender, runId }: { agentId: string; sender: string; runId: string },
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
        const by = layerAuthor({ agentId, sender, runId });
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
