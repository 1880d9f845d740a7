import type { CodeBlock } from '@rlm/protocol';
import type { RunNode } from '../run/run-node.js';
import type { InvocationSpec } from './invocation-spec.js';

/**
 * Counts iterations in a row whose code failed; trips the limit when it reaches the cap: the
 * run's, or the lower one of a child that escalates (its caller runs it again on a stronger model).
 */
export function countErrors(
  node: RunNode,
  {
    spec,
    state,
  }: {
    spec: Pick<InvocationSpec, 'errorLimit' | 'onErrorLimit'>;
    state: { consecutiveErrors: number };
  },
  blocks: readonly CodeBlock[],
): void {
  if (blocks.length === 0) return;
  const failed = blocks.some((block) => block.result.error !== null);
  state.consecutiveErrors = failed ? state.consecutiveErrors + 1 : 0;
  const max = Math.min(
    node.tree.config.budget.maxConsecutiveErrors,
    spec.errorLimit ?? Number.POSITIVE_INFINITY,
  );
  if (state.consecutiveErrors >= max) {
    const hit = { limit: 'consecutive_errors' as const, used: state.consecutiveErrors, max };
    spec.onErrorLimit?.(state.consecutiveErrors);
    node.emit({ type: 'limit-hit', ...hit });
    node.scope.stop({ status: 'budget_exceeded', ...hit });
    node.scope.signal.throwIfAborted();
  }
}
