// Generation speed of the built-in benchmarks at large sizes. Run after `pnpm --filter @rlm/eval build`:
//   node packages/eval/bench/generate.mjs [sizes, default 1m,10m]
//   (`--expose-gc` before the script: a full collection before each timed call)
// Prints milliseconds and characters per millisecond per benchmark and size.
import { BENCHMARK_NAMES, generateBenchmark, parseSize } from '../dist/index.js';

const sizes = (process.argv[2] ?? '1m,10m').split(',').map((size) => parseSize(size));
// Every generator once at a small size first, untimed, so each timed call is of warm code and not
// the first calls' compilation; and, with `--expose-gc`, a full collection before each timed call,
// so garbage left by loading the package is not collected inside whichever call comes first.
for (const name of BENCHMARK_NAMES) generateBenchmark(name, { sizes: [parseSize('10k')] });
for (const size of sizes) {
  for (const name of BENCHMARK_NAMES) {
    globalThis.gc?.();
    const started = performance.now();
    const [task] = generateBenchmark(name, { sizes: [size] });
    const ms = performance.now() - started;
    // A structured context (ARC's grids, whatever the size asked) is counted as its JSON.
    const chars =
      typeof task.context === 'string'
        ? task.context.length
        : Array.isArray(task.context) && task.context.every((doc) => typeof doc === 'string')
          ? task.context.reduce((sum, doc) => sum + doc.length, 0)
          : JSON.stringify(task.context).length;
    process.stdout.write(
      `${name.padEnd(9)} ${String(size).padStart(9)} chars  ${ms.toFixed(0).padStart(6)} ms  ${(chars / ms).toFixed(0)} chars/ms\n`,
    );
  }
}
