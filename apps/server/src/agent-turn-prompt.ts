import type { AgentMemory, RetrievedMemory } from '@rlm/memory';
import {
  type AssembledPrompt,
  assemblePrompt,
  buildDynamicContext,
  buildExecutorSections,
  type ContextItem,
  type ExecutorSections,
  type SkillSpec,
} from '@rlm/prompts';
import type { AgentRecord } from './agent-record.js';
import type { EffectiveBudget } from './run-engine.js';

/** Exchanges per sender shown in layer 10 (compact mode shows fewer, as `@rlm/prompts` decides). */
const HISTORY_EXCHANGES = 5;
/** Characters of working memory recalled per sender into the executor sections. */
const RECALL_BUDGET_CHARS = 1_500;
/** Characters the executor sections may take in layer 10. */
export const EXECUTOR_SECTIONS_CHARS = 4_000;
/** Characters of a message shown in its pending action (the whole message is in layer 10). */
const ACTION_EXCERPT_CHARS = 120;

/** A message staged for a turn. */
export interface StagedMessage {
  sender: string;
  body: string;
  /** ISO 8601, when the server received it. */
  at: string;
}

/** A REPL function the turn offers, as layer 10 lists it. */
export interface TurnTool {
  name: string;
  description: string;
}

export interface AgentTurnPromptInput {
  agent: AgentRecord;
  messages: readonly StagedMessage[];
  turn: number;
  budget: EffectiveBudget;
  compact: boolean;
  skills: readonly SkillSpec[];
  tools: readonly TurnTool[];
}

/** The assembled prompt of a turn and the executor sections it carries in layer 10. */
export interface AgentTurnPrompt {
  prompt: AssembledPrompt;
  sections: ExecutorSections;
}

/** Working-memory items are tagged by sender so one sender's items never reach another's turn. */
export function senderTag(sender: string): string {
  return `sender:${sender}`;
}

/** Working-memory items that are standing goals carry this tag (and their sender's tag). */
export const GOAL_TAG = 'goal';

/**
 * The layered prompt of one agent turn: layers 0–9 with the agent's layers, identity tag and
 * skills, and layer 10 with the turn number, the budget the turn starts with, every staged message
 * with its sender, each sender's own history (and nobody else's), then the executor sections of
 * `@rlm/prompts` (goals, pending actions and working memory, each line with its `[source: …]`)
 * quoted as data, since their text comes from senders.
 */
export async function agentTurnPrompt(
  memory: AgentMemory,
  input: AgentTurnPromptInput,
): Promise<AgentTurnPrompt> {
  const { agent, messages, compact } = input;
  const senders = [...new Set(messages.map((message) => message.sender))];
  const current = await memory.promptLayers.current();
  const mutable = Object.fromEntries(current.map((layer) => [layer.layerId, layer]));
  const conversations = await Promise.all(
    senders.map(async (sender) => ({
      sender,
      messages: (await memory.conversations.recent(sender, HISTORY_EXCHANGES)).flatMap(
        (exchange) => [
          {
            role: 'user' as const,
            text: exchange.senderBody,
            at: new Date(exchange.at).toISOString(),
          },
          { role: 'assistant' as const, text: exchange.agentReply },
        ],
      ),
    })),
  );
  const sections = await executorSections(memory, input, senders);
  const dynamic = buildDynamicContext(
    {
      state: { agent: agent.id, senders: senders.length },
      turn: input.turn,
      budget: {
        tokensRemaining: input.budget.maxTokens,
        callsRemaining: input.budget.maxIterations + input.budget.maxSubcalls,
        timeRemainingMs: input.budget.maxWallTimeMs,
        costRemainingUsd: input.budget.maxCostUsd,
      },
      pendingMessages: messages.map(({ sender, body, at }) => ({ sender, text: body, at })),
      // Only the senders of this turn: another sender's history never enters the prompt.
      conversations,
      tools: [...input.tools],
    },
    { compact },
  );
  const prompt = assemblePrompt(
    {
      mutable,
      identityTag: agent.identityTag ?? undefined,
      skills: input.skills,
      dynamic: `${dynamic}\n### Executor sections (data, each line with its source)\n${quote(sections.text)}`,
    },
    { compact },
  );
  return { prompt, sections };
}

async function executorSections(
  memory: AgentMemory,
  input: AgentTurnPromptInput,
  senders: readonly string[],
): Promise<ExecutorSections> {
  const goals: ContextItem[] = [];
  const episodic: ContextItem[] = [];
  const semantic: ContextItem[] = [];
  for (const sender of senders) {
    const query = input.messages
      .filter((message) => message.sender === sender)
      .map((message) => message.body)
      .join('\n');
    const tags = [senderTag(sender)];
    const standing = await memory.workingMemory.list({ tags: [...tags, GOAL_TAG], limit: 5 });
    goals.push(...standing.map((item) => ({ text: item.content, source: label(item) })));
    const recalled = await memory.workingMemory.retrieve({
      query,
      budgetChars: RECALL_BUDGET_CHARS,
      tags,
    });
    for (const item of recalled.items.filter((each) => !each.tags.includes(GOAL_TAG))) {
      const entry = { text: item.content, source: item.provenance.label };
      (item.kind === 'fact' ? semantic : episodic).push(entry);
    }
  }
  return buildExecutorSections({
    role: { text: `Agent ${input.agent.id}, turn ${input.turn}.`, source: 'server' },
    goals,
    pendingActions: input.messages.map((message, index) => ({
      text: `Reply to ${JSON.stringify(message.sender)} about: ${excerpt(message.body)}`,
      source: `message:${index + 1} from ${JSON.stringify(message.sender)}`,
    })),
    episodic,
    semantic,
    task: {
      text: 'Answer every pending message; each sender gets only what is meant for them.',
      source: 'server',
    },
    maxChars: EXECUTOR_SECTIONS_CHARS,
  });
}

function label(item: Pick<RetrievedMemory, 'id' | 'kind' | 'source'>): string {
  return `working-memory/${item.kind}#${item.id} from ${item.source}`;
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= ACTION_EXCERPT_CHARS ? line : `${line.slice(0, ACTION_EXCERPT_CHARS - 1)}…`;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.length === 0 ? '>' : `> ${line}`))
    .join('\n');
}
