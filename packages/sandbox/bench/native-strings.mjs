// Idiomatic searches over a 50 MB context from guest code (issue #39 item 1): the same guest code
// in two worker sandboxes over the same context, one with the native string methods (the
// default) and one with them off (`nativeStringMinChars: 2 ** 30`, QuickJS's interpreter), timed
// in interleaved rounds so machine load hits both alike.
//
//   node bench/native-strings.mjs [megabytes] [rounds]     (standalone; needs dist/)
//
// `nativeStringWorkloads` and `measureNativeStrings` are what bench/targets.mjs (and the
// reference-engine comparison in the root bench/ folder) reuse.
import { pathToFileURL } from 'node:url';
import { haystack, median } from '../../../scripts/bench/targets-table.mjs';

/** Guest code per workload; each evaluates to a small value, checked equal on both sides. */
export const nativeStringWorkloads = {
  'regex search (context.match(/NEEDLE-\\d+/g))': '(context.match(/NEEDLE-\\d+/g) || []).length',
  're.exec loop (/NEEDLE-(\\d+)/g)':
    'var execRe = /NEEDLE-(\\d+)/g, execCount = 0; while (execRe.exec(context) !== null) execCount++; execCount',
  're.test (/status=fail/)': '/status=fail/.test(context)',
  'indexOf (a string not in it)': 'context.indexOf("NEEDLE-9999")',
  'split(/\\n/)': 'context.split(/\\n/).length',
  "split('\\n') (a string separator: stays in QuickJS)": 'context.split("\\n").length',
};

/**
 * Per workload, per round: milliseconds of the block with the native methods (`native`) and in
 * QuickJS's interpreter (`interpreter`), from `rounds` interleaved rounds (the order flips each
 * round). The first block on the native sandbox, which also makes the host's copy of the
 * context, is reported apart as `firstNativeMs`.
 */
export async function measureNativeStrings(
  sandboxModule,
  { megabytes = 50, rounds = 5, workloads = nativeStringWorkloads } = {},
) {
  const text = haystack(megabytes * 1_000_000);
  // QuickJS's own split by a RegExp over 50 MB takes longer than a block's default CPU budget.
  const limits = { cpuSliceMs: 600_000, blockTimeoutMs: 900_000 };
  const native = await sandboxModule.createSandbox({ isolation: 'worker', context: text, limits });
  const interpreter = await sandboxModule.createSandbox({
    isolation: 'worker',
    context: text,
    limits: { ...limits, nativeStringMinChars: 2 ** 30 },
  });
  const timed = async (sandbox, code) => {
    const started = performance.now();
    const result = await sandbox.execute(code);
    if (result.error) throw new Error(`${code}: ${result.error.message}`);
    return { ms: performance.now() - started, out: result.stdout };
  };
  try {
    const firstNativeMs = (await timed(native, 'context.indexOf("NEEDLE-4242")')).ms;
    const results = {};
    for (const [name, code] of Object.entries(workloads)) {
      results[name] = await interleavedSides(name, rounds, (side) =>
        timed(side === 'native' ? native : interpreter, code),
      );
    }
    return { firstNativeMs, results };
  } finally {
    await native.dispose();
    await interpreter.dispose();
  }
}

/** `rounds` timings of one workload on each side, the order flipping each round. */
async function interleavedSides(name, rounds, run) {
  const samples = { native: [], interpreter: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['native', 'interpreter'] : ['interpreter', 'native'];
    const outs = {};
    for (const side of order) {
      const { ms, out } = await run(side);
      samples[side].push(ms);
      outs[side] = out;
    }
    if (outs.native !== outs.interpreter) {
      throw new Error(
        `${name}: ${outs.native} with the native methods, ${outs.interpreter} without`,
      );
    }
  }
  return samples;
}

/** Adds the rows to a targets table (see bench/targets.mjs). */
export async function nativeStringTargets(target, sandboxModule, options) {
  const { firstNativeMs, results } = await measureNativeStrings(sandboxModule, options);
  const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  for (const [name, samples] of Object.entries(results)) {
    const ratio = median(samples.native.map((value, index) => value / samples.interpreter[index]));
    target(`guest ${name} over 50 MB, native methods / QuickJS interpreter`, {
      goal: '—',
      values: [ratio],
      holds: () => null,
      format: (v) =>
        `${v.toFixed(3)}× (${ms(median(samples.native))} vs ${ms(median(samples.interpreter))})`,
    });
  }
  target('guest first native search over 50 MB (makes the host copy; for the record)', {
    goal: '—',
    values: [firstNativeMs],
    holds: () => null,
    format: ms,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sandboxModule = await import(new URL('../dist/index.js', import.meta.url).href);
  const megabytes = Number(process.argv[2] ?? 50);
  const rounds = Number(process.argv[3] ?? 5);
  const { firstNativeMs, results } = await measureNativeStrings(sandboxModule, {
    megabytes,
    rounds,
  });
  process.stdout.write(
    `first native search (makes the host copy): ${firstNativeMs.toFixed(0)} ms\n`,
  );
  for (const [name, samples] of Object.entries(results)) {
    const ratio = median(samples.native.map((value, index) => value / samples.interpreter[index]));
    process.stdout.write(
      `${name}: native ${median(samples.native).toFixed(1)} ms, interpreter ${median(samples.interpreter).toFixed(1)} ms, ratio ${ratio.toFixed(3)}×\n`,
    );
  }
  process.exit(0);
}
