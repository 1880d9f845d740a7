import { randomBytes } from 'node:crypto';
import {
  type AgentMemory,
  normalizeSenderId,
  type PromptLayerVersion,
  type Store,
} from '@rlm/memory';
import { validateLayerUpdate } from '@rlm/prompts';
import { type JsonValue, RlmError, type UsageSummary } from '@rlm/protocol';
import { nextTurnNumber, saveLastTurn } from './agent-last-turn.js';
import { type AgentMessage, type AgentRecord, layerAuthor } from './agent-record.js';
import type { AgentRegistry } from './agent-registry.js';
import { activeSkills } from './agent-skills.js';
import { agentTurnPrompt, GOAL_TAG, type StagedMessage, senderTag } from './agent-turn-prompt.js';
import type { Principal } from './api-key-store.js';
import type { ContextStore } from './context-store.js';
import { effectiveBudget } from './effective-budget.js';
import { newRunId } from './new-run-id.js';
import { ownProfile } from './own-profile.js';
import type { EngineTool } from './run-engine.js';
import type { RunManager } from './run-manager.js';
import type { RunOutcome } from './run-outcome.js';
import type { ServerConfig } from './server-config.js';

/** The most messages one turn takes; later ones are staged for the turn after. */
export const MAX_TURN_MESSAGES = 20;
/**
 * The most characters of message bodies one turn takes (one request's own messages always go
 * together); later messages are staged for the turn after, so layer 10 stays readable.
 */
export const MAX_TURN_CHARS = 40_000;

/** A sender's reply from one turn. */
export interface SenderReply {
  sender: string;
  reply: string;
}

/** What one agent turn returns to each request whose messages it took. */
export interface AgentTurnResult {
  /** The reply to the request's sender when it sent as one sender; else `''`. */
  reply: string;
  /** One reply per sender of this request (never another request's senders). */
  replies: SenderReply[];
  runId: string;
  /** Which turn of the agent this was (1 for its first). */
  turn: number;
  /** How many messages, from every request staged for it, the turn took. */
  messagesInTurn: number;
  status: RunOutcome['status'];
  usage: UsageSummary;
  /** Version of the assembled layered prompt this turn used. */
  promptVersion: string;
  /** `compact` when the agent's profile selects it (`promptStyle`). */
  promptStyle: 'full' | 'compact';
  /** The layer the agent rewrote this turn, if it did. */
  layerUpdate: PromptLayerVersion | null;
}

export interface AgentTurns {
  /**
   * Stages `messages` for the agent's next turn and resolves with that turn's outcome. Turns of
   * one agent run one at a time so histories stay consistent; every message that arrives while a
   * turn runs (from any request, any sender) is taken by the next turn, together, up to
   * `MAX_TURN_MESSAGES` messages and `MAX_TURN_CHARS` characters. The turn's run belongs to the
   * key of the first request staged for it. The agent is looked up again when the turn's time comes, so a turn
   * queued behind a deletion gets 404.
   * @throws RlmError `server.not_found` when the agent is gone by then
   */
  run(
    principal: Principal,
    agent: AgentRecord,
    messages: readonly AgentMessage[],
  ): Promise<AgentTurnResult>;
  /**
   * Deletes the agent: its registration at once (new messages get 404), then, after the turns
   * already in progress, everything stored for it (conversations, prompt layers, scratchpad,
   * working memory). Resolves once all of it is gone; the agent's runs stay, owned by their keys.
   */
  remove(agent: AgentRecord): Promise<void>;
  /** How many messages are staged for the agent's next turn (not yet started). */
  staged(agentId: string): number;
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

/** Messages waiting for one turn, and that turn's outcome once it has run. */
interface Stage {
  principal: Principal;
  messages: StagedMessage[];
  outcome: Promise<TurnOutcome>;
}

/** A turn's outcome for all its senders. */
interface TurnOutcome extends Omit<AgentTurnResult, 'reply' | 'replies'> {
  replies: Map<string, string>;
}

/** Creates the agent turn runner over the store's per-agent memory and the run manager. */
export function createAgentTurns(options: AgentTurnsOptions): AgentTurns {
  const queues = new Map<string, Promise<unknown>>();
  /** The not yet started turn of each agent that new messages join. */
  const stages = new Map<string, Stage>();
  const { exclusive } = options;
  /** Runs `task` after everything queued for the agent before it. */
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
  function stageFor(
    principal: Principal,
    agent: AgentRecord,
    incoming: readonly StagedMessage[],
  ): Stage {
    const open = stages.get(agent.id);
    const chars = (messages: readonly StagedMessage[]) =>
      messages.reduce((sum, message) => sum + message.body.length, 0);
    if (
      open !== undefined &&
      open.messages.length + incoming.length <= MAX_TURN_MESSAGES &&
      chars(open.messages) + chars(incoming) <= MAX_TURN_CHARS
    ) {
      return open;
    }
    const stage: Stage = { principal, messages: [], outcome: Promise.resolve() as never };
    stage.outcome = inTurn(agent.id, async () => {
      // From here on, new messages wait for the turn after this one.
      if (stages.get(agent.id) === stage) stages.delete(agent.id);
      const current = await options.agents.owned(principal, agent.id);
      return runTurn(options, { principal, agent: current, messages: stage.messages });
    });
    stages.set(agent.id, stage);
    return stage;
  }
  return {
    async run(principal, agent, messages) {
      const at = new Date().toISOString();
      const staged = messages.map(({ sender, body }) => ({
        sender: normalizeSenderId(sender),
        body,
        at,
      }));
      const stage = stageFor(principal, agent, staged);
      stage.messages.push(...staged);
      const { replies, ...outcome } = await stage.outcome;
      const own = [...new Set(staged.map((message) => message.sender))].map((sender) => ({
        sender,
        reply: replies.get(sender) ?? '',
      }));
      return { ...outcome, replies: own, reply: own.length === 1 ? (own[0]?.reply ?? '') : '' };
    },
    staged(agentId) {
      return stages.get(agentId)?.messages.length ?? 0;
    },
    async remove(agent) {
      await options.agents.remove(agent);
      await inTurn(agent.id, () => options.store.deleteAgent(agent.id));
    },
  };
}

async function runTurn(
  { store, runs, config }: AgentTurnsOptions,
  {
    principal,
    agent,
    messages,
  }: { principal: Principal; agent: AgentRecord; messages: readonly StagedMessage[] },
): Promise<TurnOutcome> {
  const memory = store.forAgent(agent.id);
  const senders = [...new Set(messages.map((message) => message.sender))];
  const profile = ownProfile(config, agent.profile);
  if (profile === undefined) {
    throw new RlmError({
      code: 'server.unavailable',
      message: `Agent ${agent.id} uses profile "${agent.profile}", which is no longer configured`,
      details: { reason: 'profile removed' },
    });
  }
  // Named before the run exists, so a self-edit made at any point of the turn records its run.
  const runId = newRunId();
  const by = senders.length === 1 ? (senders[0] ?? '') : senders.join(', ');
  const layerTool = updatePromptLayerTool(memory, agent, { sender: by, runId });
  const replyTool = replyToSenderTool(senders);
  const goalTool = addGoalTool(memory, senders, runId);
  const budget = effectiveBudget(profile, undefined, config.maxima);
  const turn = await nextTurnNumber(memory);
  const promptStyle = profile.promptStyle;
  const { prompt } = await agentTurnPrompt(memory, {
    agent,
    messages,
    turn,
    budget,
    compact: promptStyle === 'compact',
    skills: await activeSkills(memory, agent),
    tools: [
      { name: 'reply', description: REPLY_DESCRIPTION },
      { name: 'add_goal', description: ADD_GOAL_DESCRIPTION },
      { name: 'update_prompt_layer', description: UPDATE_PROMPT_LAYER_DESCRIPTION },
    ],
  });
  await saveLastTurn(
    memory,
    { turn, runId, at: new Date().toISOString(), promptStyle, senders },
    prompt,
  );
  // One message keeps the shape turns always had; several come as a list, each with its sender.
  const only = messages.length === 1 ? messages[0] : undefined;
  const context: JsonValue =
    only === undefined
      ? { messages: messages.map(({ sender, body, at }) => ({ sender, message: body, at })) }
      : { sender: only.sender, message: only.body };
  const { record, done } = await runs.submit({
    runId,
    principal,
    kind: 'agent',
    agentId: agent.id,
    query:
      senders.length === 1
        ? `Reply to the pending message${messages.length > 1 ? 's' : ''} from ${senders[0]} (layer 10 of your instructions; also in \`context\`). Finish with FINAL(<your reply>).`
        : `Reply to the ${messages.length} pending messages from ${senders.length} senders (${senders.join(', ')}; layer 10 of your instructions; also in \`context\`). Give each sender their own reply with reply(sender, text), then finish with FINAL(<a reply>); FINAL's reply goes to every sender you did not reply to.`,
    inlineContext: context,
    profileName: agent.profile,
    budget,
    systemPrompt: prompt.text,
    tools: { reply: replyTool.tool, add_goal: goalTool, update_prompt_layer: layerTool.tool },
  });
  const outcome = await done;
  const final = outcome.answer ?? outcome.partialAnswer ?? '';
  const replies = new Map<string, string>();
  for (const sender of senders) {
    const reply = replyTool.replies.get(sender) ?? final;
    replies.set(sender, reply);
    if (reply === '') continue;
    const body = messages
      .filter((message) => message.sender === sender)
      .map((message) => message.body)
      .join('\n\n');
    await memory.conversations.append(sender, {
      messageId: `msg_${randomBytes(8).toString('hex')}`,
      senderBody: body,
      agentReply: reply,
      turnId: record.id,
    });
    await memory.workingMemory.add({
      kind: 'episode',
      content: `${sender} wrote: ${body.slice(0, 300)} | replied: ${reply.slice(0, 300)}`,
      tags: [senderTag(sender)],
      source: `turn:${record.id}`,
    });
  }
  return {
    replies,
    runId: record.id,
    turn,
    messagesInTurn: messages.length,
    status: outcome.status,
    usage: outcome.usage,
    promptVersion: prompt.version,
    promptStyle,
    layerUpdate: layerTool.applied(),
  };
}

const REPLY_DESCRIPTION =
  'reply(sender, text): the reply this sender gets (once per sender; the last call counts). Senders without one get your FINAL answer.';

const ADD_GOAL_DESCRIPTION =
  'add_goal(sender, text): keep a standing goal for this sender; it is shown under "Active goals" in their later turns.';

/** The REPL function `reply`: one reply per sender of this turn, kept apart. */
function replyToSenderTool(senders: readonly string[]) {
  const replies = new Map<string, string>();
  const tool: EngineTool = {
    description: REPLY_DESCRIPTION,
    async call([sender, text]) {
      if (typeof sender !== 'string' || typeof text !== 'string' || text.trim() === '') {
        return refusal('protocol.invalid_message', 'expected reply(sender: string, text: string)');
      }
      const id = normalizeSenderId(sender);
      if (!senders.includes(id)) {
        return refusal(
          'protocol.invalid_message',
          `sender: expected one of this turn's senders (${senders.map((each) => JSON.stringify(each)).join(', ')})`,
        );
      }
      replies.set(id, text);
      return { ok: true, sender: id };
    },
  };
  return { tool, replies };
}

/** The REPL function `add_goal`: a standing goal, kept in working memory with its provenance. */
function addGoalTool(memory: AgentMemory, senders: readonly string[], runId: string): EngineTool {
  return {
    description: ADD_GOAL_DESCRIPTION,
    async call([sender, text]) {
      if (typeof sender !== 'string' || typeof text !== 'string' || text.trim() === '') {
        return refusal(
          'protocol.invalid_message',
          'expected add_goal(sender: string, text: string)',
        );
      }
      const id = normalizeSenderId(sender);
      if (!senders.includes(id)) {
        return refusal('protocol.invalid_message', "sender: expected one of this turn's senders");
      }
      const item = await memory.workingMemory.add({
        kind: 'fact',
        content: text.slice(0, 500),
        tags: [GOAL_TAG, senderTag(id)],
        source: `turn:${runId}`,
      });
      return { ok: true, id: item.id };
    },
  };
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
  agent: AgentRecord,
  { sender, runId }: { sender: string; runId: string },
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
        await checkWithSkills(memory, agent, { layerId, content });
        const by = layerAuthor({ agentId: agent.id, sender, runId });
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

/**
 * Checks a layer update against the whole prompt with the agent's skills in layer 5 (the store's
 * policy sees the layers only), so a layer never grows into room the skills already take.
 * @throws RlmError the codes of `validateLayerUpdate`
 */
export async function checkWithSkills(
  memory: AgentMemory,
  agent: AgentRecord,
  { layerId, content }: { layerId: number; content: string },
): Promise<void> {
  const current = await memory.promptLayers.current();
  const result = validateLayerUpdate(layerId, content, {
    layers: Object.fromEntries(current.map((layer) => [layer.layerId, layer.content])),
    identityTag: agent.identityTag ?? undefined,
    skills: await activeSkills(memory, agent),
  });
  if (!result.ok) throw result.error;
}

function refusal(code: string, message: string): JsonValue {
  return { ok: false, error: { code, message } };
}
