import type { CodeBlock, ReplEnvironment } from '@rlm/protocol';
import type { RunNode } from '../run/run-node.js';
import type { MetaRefresh } from './meta-refresh.js';

/**
 * Runs a turn's code blocks in order, each in its span, with `block-start`/`block-end` events and
 * the sub-calls each made; stops between blocks as soon as the invocation's scope aborts.
 */
export async function runBlocks(
  node: RunNode,
  {
    sandbox,
    codes,
    iteration,
    meta,
  }: {
    sandbox: ReplEnvironment;
    codes: readonly string[];
    iteration: number;
    /** Gives a block `__rlm` for this turn when it needs it. */
    meta: MetaRefresh;
  },
): Promise<CodeBlock[]> {
  const blocks: CodeBlock[] = [];
  for (const [index, code] of codes.entries()) {
    node.scope.signal.throwIfAborted();
    const variables = meta.variablesFor(code);
    node.emit({ type: 'block-start', iteration, index, code });
    node.beginBlock();
    const result = await node.tree.tracing.block(node.spans, { iteration, index, code }, () =>
      sandbox.execute(code, {
        signal: node.scope.signal,
        ...(variables === undefined ? {} : { variables }),
      }),
    );
    const withCalls = { ...result, llmCalls: node.endBlock() };
    blocks.push({ code, result: withCalls });
    node.emit({
      type: 'block-end',
      iteration,
      index,
      stdout: result.stdout,
      stderr: result.stderr,
      executionTime: result.executionTime,
      finalAnswer: result.finalAnswer,
      error: result.error,
      unawaitedCalls: result.unawaitedCalls,
    });
  }
  node.scope.signal.throwIfAborted();
  return blocks;
}
