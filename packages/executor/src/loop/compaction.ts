import type { ChatMessage, ModelResponse, ReplEnvironment } from '@rlm/protocol';
import { callModel } from '../run/call-model.js';
import type { RunNode } from '../run/run-node.js';
import type { InvocationSpec } from './invocation-spec.js';

/** Characters per token when the provider reported no usage (a common rough ratio). */
const CHARS_PER_TOKEN = 4;

/** The request of the summary call (our wording). */
export const COMPACTION_PROMPT =
  'Your conversation is close to the size of your context window, so it will be replaced by a ' +
  'summary. Write that summary now, as plain text (no code blocks): the task, what you have ' +
  'established so far with the concrete values found, which REPL variables hold your ' +
  'intermediate results, what failed, and what you planned to do next. Be complete but brief.';

/** Sent after the summary, so the model knows where its earlier work went. */
export const COMPACTED_NOTE =
  'Your earlier work in this run was compacted into the summary above to fit your context ' +
  'window. The REPL is unchanged: every variable still exists, and `history` holds the full ' +
  'earlier conversation as a list of messages.';

/** Conversation state compaction reads and rewrites. */
export interface CompactionState {
  history: ChatMessage[];
  /** Every message of the run before the current history's own messages (earlier compactions). */
  archive: ChatMessage[];
  /** Synthetic messages at the start of `history` (metadata, summary, note) after a compaction. */
  compactedPrefix: number;
  /** Input tokens of the latest root call and how many messages it was sent. */
  lastCall: { inputTokens: number; messageCount: number } | null;
}

function chars(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + message.content.length, 0);
}

/** The whole conversation of the run, compacted parts included. */
export function fullConversation(state: CompactionState): ChatMessage[] {
  return [...state.archive, ...state.history.slice(state.compactedPrefix)];
}

/** Records a root call's reported input size, the base of the next estimate. */
export function noteRootCall(
  state: CompactionState,
  { response, messageCount }: { response: ModelResponse; messageCount: number },
): void {
  const { inputTokens, cacheReadTokens, cacheWriteTokens } = response.usage;
  const total = inputTokens + cacheReadTokens + cacheWriteTokens;
  state.lastCall = total > 0 ? { inputTokens: total, messageCount } : null;
}

/**
 * Tokens the next root request will hold: the last call's reported input plus an estimate of the
 * messages added since, or an estimate of everything when the provider reported no usage.
 */
export function conversationTokens(state: CompactionState, system: string): number {
  const last = state.lastCall;
  if (last === null) {
    return Math.ceil((system.length + chars(state.history)) / CHARS_PER_TOKEN);
  }
  return (
    last.inputTokens + Math.ceil(chars(state.history.slice(last.messageCount)) / CHARS_PER_TOKEN)
  );
}

/**
 * Whether this invocation's conversation may ever be compacted: a root with a compaction fraction
 * and a model that states its window. The loop asks before each turn, so a run without compaction
 * does not go through `compactIfNeeded` (an async call) every turn.
 */
export function compacts(node: RunNode, spec: InvocationSpec): boolean {
  return (
    node.tree.config.compaction?.fraction !== undefined &&
    spec.model.contextWindow !== undefined &&
    spec.depth === 0
  );
}

/**
 * Compacts the root conversation when it reaches `compaction.fraction` of the model's window:
 * one summary call (charged to the budget like any call), the full conversation kept in the
 * sandbox variable `history`, and the loop continuing from the metadata message and the summary.
 */
export async function compactIfNeeded(
  node: RunNode,
  {
    spec,
    state,
    sandbox,
    iteration,
  }: {
    spec: InvocationSpec;
    state: CompactionState;
    sandbox: Promise<ReplEnvironment>;
    iteration: number;
  },
): Promise<void> {
  const fraction = node.tree.config.compaction?.fraction;
  const window = spec.model.contextWindow;
  if (fraction === undefined || window === undefined || !compacts(node, spec)) return;
  if (conversationTokens(state, spec.systemPrompt) < fraction * window) return;
  const messagesBefore = state.history.length;
  const response = await callModel(node, {
    model: spec.model,
    system: spec.systemPrompt,
    messages: [...state.history, { role: 'user', content: COMPACTION_PROMPT }],
    purpose: 'summary',
  });
  const full = fullConversation(state);
  await (await sandbox).setVariable(
    'history',
    full.map((message) => ({ ...message })),
  );
  const metadata = state.archive[0] ?? state.history[0];
  state.archive = full;
  state.history = [
    ...(metadata === undefined ? [] : [metadata]),
    { role: 'assistant', content: response.text },
    { role: 'user', content: COMPACTED_NOTE },
  ];
  state.compactedPrefix = state.history.length;
  state.lastCall = null;
  node.emit({
    type: 'compaction-end',
    iteration,
    messagesBefore,
    summaryChars: response.text.length,
  });
}
