import type { CodeBlock, ErrorCode, ReplEnvironment } from '@rlm/protocol';
import type { ProposedAnswer } from '../dispatch/dispatcher-functions.js';
import type { RunNode } from '../run/run-node.js';
import { type TurnAnswer, turnAnswer } from './final-answer.js';
import type { InvocationSpec } from './invocation-spec.js';
import { typedAnswer } from './typed-answer.js';

/** The loop state a turn's verdict reads and updates. */
export interface VerdictState {
  /** The latest `set_answer`. */
  proposed: ProposedAnswer | null;
  /** A `set_answer` the output schema refused: not checked (or reported) again. */
  refusedProposal: ProposedAnswer | null;
  /** Why the output schema refused the latest refused answer: the reason a run without one ends. */
  lastMismatch: string | null;
}

/**
 * A `set_answer` that ends the run, when no `FINAL` came first: one marked `ready` (unless its
 * confidence is below a configured threshold), or, unmarked, one whose confidence reaches the
 * threshold. A draft (`ready: false`) never does.
 */
function proposedAnswer(node: RunNode, state: VerdictState): TurnAnswer | null {
  const threshold = node.tree.config.confidenceThreshold;
  const proposed = state.proposed;
  if (proposed === null || proposed === state.refusedProposal || proposed.ready === false) {
    return null;
  }
  const confident =
    proposed.confidence !== null && threshold !== undefined && proposed.confidence >= threshold;
  const ends =
    proposed.ready === true
      ? threshold === undefined || proposed.confidence === null || confident
      : confident;
  return ends ? { kind: 'answer', answer: proposed.content, source: 'set_answer' } : null;
}

/**
 * The turn's answer: FINAL (the normal way to finish) first, then a confident `set_answer`, each
 * checked against the run's output schema when it has one.
 */
export async function turnVerdict(
  node: RunNode,
  {
    spec,
    state,
    text,
    blocks,
    sandbox,
  }: {
    spec: InvocationSpec;
    state: VerdictState;
    text: string;
    blocks: readonly CodeBlock[];
    sandbox: ReplEnvironment;
  },
): Promise<TurnAnswer> {
  const marked = typedAnswer(spec.output, await turnAnswer(text, { blocks, sandbox }));
  if (marked.kind === 'answer') return marked;
  if (marked.mismatch !== undefined) state.lastMismatch = marked.mismatch;
  const proposed = proposedAnswer(node, state);
  if (proposed === null) return marked;
  const typed = typedAnswer(spec.output, proposed);
  if (typed.kind === 'answer') return typed;
  state.refusedProposal = state.proposed;
  state.lastMismatch = marked.mismatch ?? typed.mismatch ?? state.lastMismatch;
  // A refused FINAL says so first; the refused set_answer's note follows.
  const notes = [marked.note, typed.note].filter((note) => note !== undefined);
  return { kind: 'none', note: notes.join('\n\n') };
}

/** Why a run ended without an answer, when the output schema refused the model's last one. */
export function refusalError(state: VerdictState): { code: string; message: string } | null {
  if (state.lastMismatch === null) return null;
  const code: ErrorCode = 'executor.answer_refused';
  return { code, message: `the model's last final answer ${state.lastMismatch}` };
}
