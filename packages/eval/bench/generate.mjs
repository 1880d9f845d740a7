// Generation speed of the built-in benchmarks at large sizes. Run after `pnpm --filter @rlm/eval build`:
//   node packages/eval/bench/generate.mjs [sizes, default 1m,10m]
// Prints milliseconds and characters per millisecond per benchmark and size.
import { BENCHMARK_NAMES, generateBenchmark, parseSize } from '../dist/index.js';

const sizes = (process.argv[2] ?? '1m,10m').split(',').map((size) => parseSize(size));
for (const size of sizes) {
  for (const name of BENCHMARK_NAMES) {
    const started = performance.now();
    const [task] = generateBenchmark(name, { sizes: [size] });
    const ms = performance.now() - started;
    const chars = Array.isArray(task.context)
      ? task.context.reduce((sum, doc) => sum + doc.length, 0)
      : task.context.length;
    process.stdout.write(
      `${name.padEnd(9)} ${String(size).padStart(9)} chars  ${ms.toFixed(0).padStart(6)} ms  ${(chars / ms).toFixed(0)} chars/ms\n`,
    );
  }
}
