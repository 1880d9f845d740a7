import { repl } from './rlm-test-kit.js';

/**
 * Blocks ending in one native call that runs for many seconds (quadratic in the depth): only the
 * worker's watchdog can stop it, so a worker sandbox is reset (`sandbox.reset`). The object is
 * built over several blocks, each well within its CPU budget.
 */
export const RUNAWAY_BLOCKS: readonly string[] = [
  'var deep = {}; 1',
  ...Array.from({ length: 20 }, () => 'for (let i = 0; i < 3_000; i++) deep = { deep }; 1'),
  'JSON.stringify(deep).length',
];

/** Limits with room for `RUNAWAY_BLOCKS` in one turn. */
export const RUNAWAY_LIMITS = { cpuSliceMs: 1_000, maxBlocksPerIteration: 30 };

/** A response running `blocks` in order, one fenced block each. */
export function repls(blocks: readonly string[]): string {
  return blocks.map((code) => repl(code)).join('\n');
}
