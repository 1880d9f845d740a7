import type { CodeBlock, CodeBlockSpan, ReplEnvironment } from '@rlm/protocol';
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
    spans,
    iteration,
    meta,
  }: {
    sandbox: ReplEnvironment;
    /** The blocks to run, with the response lines each was written on. */
    spans: readonly CodeBlockSpan[];
    iteration: number;
    /** Gives a block `__rlm` for this turn when it needs it. */
    meta: MetaRefresh;
  },
): Promise<CodeBlock[]> {
  const blocks: CodeBlock[] = [];
  for (const [index, { code, startLine, endLine }] of spans.entries()) {
    node.scope.signal.throwIfAborted();
    const variables = meta.variablesFor(code);
    node.emit({ type: 'block-start', iteration, index, code, startLine, endLine });
    node.beginBlock();
    const result = await node.tree.tracing.block(node.spans, { iteration, index, code }, () =>
      sandbox.execute(code, {
        signal: node.scope.signal,
        ...(variables === undefined ? {} : { variables }),
      }),
    );
    const withCalls = { ...result, llmCalls: node.endBlock() };
    blocks.push({ code, result: withCalls, startLine, endLine });
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
