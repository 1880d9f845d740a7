// Issue #39's targets, side by side with the reference engine ("rlmpaper", the paper authors'
// Python engine). Run: pnpm bench (the root step), or node bench/side-by-side.mjs [--reference=DIR]
// [--quick]. The reference checkout comes from --reference=DIR or RLM_REFERENCE_DIR (a clone of
// github.com/alexzhang13/rlm, never committed here); without one, its column says "not measured".
// Needs a build (dist/) of this checkout. Every row with a counterpart is measured in interleaved
// rounds (ours, theirs, then theirs, ours, …), so the load of a shared machine hits both alike: on a
// busy machine the ratio column is the meaningful part. The reference side runs through
// bench/rlmpaper-driver.py (its LocalREPL `exec` path, see there for what it imports).
import { execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import {
  model,
  REFERENCE_BLOCK,
  repl,
  turnOf,
} from '../packages/executor/bench/reference-turn.mjs';
import { median } from '../scripts/bench/targets-table.mjs';
import {
  childTasks,
  compactText,
  GREP,
  MIB,
  REGEX,
  TURNS,
  text,
} from './side-by-side-children.mjs';
import { pythonSection } from './side-by-side-python.mjs';
import { perTurnStats, sideBySideTable } from './side-by-side-table.mjs';

const repoRoot = new URL('../', import.meta.url).pathname;
const args = process.argv.slice(2);
const argValue = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const childTask = argValue('child');
const quick = args.includes('--quick');
// biome-ignore lint/style/noProcessEnv: the reference checkout may be named in the environment
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read by this bench only, documented in bench/README.md
const referenceDir = argValue('reference') ?? process.env.RLM_REFERENCE_DIR;
/** `--only=load,turns`: just those sections (guest, load, turns, create, first, version, rss, helper, peak, python). */
const only = argValue('only')?.split(',');
const wanted = (section) => only === undefined || only.includes(section);
const driverPath = new URL('./rlmpaper-driver.py', import.meta.url).pathname;

const importDist = (path) => import(pathToFileURL(join(repoRoot, path)).href);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const ANSWER_PY = 'answer["content"] = "done"; answer["ready"] = True';

if (childTask !== undefined) {
  const result = await childTasks[childTask]({ isolation: argValue('isolation') });
  process.send(result);
  process.exit(0);
}

function inChild(task, extraArgs = []) {
  return new Promise((done, fail) => {
    const child = fork(new URL(import.meta.url).pathname, [`--child=${task}`, ...extraArgs], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result;
    child.on('message', (message) => {
      result = message;
    });
    child.on('exit', (code) =>
      code === 0 && result ? done(result) : fail(new Error(`${task} exited ${code}`)),
    );
  });
}

// ── The reference engine: one long-lived driver, and fresh ones for per-process measures ──
function referenceServer() {
  if (referenceDir === undefined) return undefined;
  const child = spawn('python3', [driverPath, referenceDir, 'serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line)));
  return {
    async call(task, taskArgs = {}) {
      const reply = await new Promise((done) => {
        waiting.push(done);
        child.stdin.write(`${JSON.stringify({ task, args: taskArgs })}\n`);
      });
      if (!reply.ok) throw new Error(`rlmpaper ${task}: ${reply.error}`);
      return reply.value;
    },
    close: () => child.stdin.end(),
  };
}
const referenceOnce = (task, taskArgs) =>
  JSON.parse(
    execFileSync('python3', [driverPath, referenceDir, task, JSON.stringify(taskArgs)], {
      encoding: 'utf8',
      maxBuffer: 64 * MIB,
    }),
  );

const reference = referenceServer();
const table = sideBySideTable({ referenceDir });
const dir = mkdtempSync(join(tmpdir(), 'rlm-side-by-side-'));
const fileOf = (name, content) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/**
 * Alternates `ours()` and `theirs()` for `rounds` rounds (the order flips each round); without a
 * reference checkout only ours runs. Returns each side's samples.
 */
async function alternate(rounds, ours, theirs) {
  const samples = { ours: [], theirs: [] };
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];
    for (const side of sides) {
      if (side === 'theirs' && reference === undefined) continue;
      samples[side].push(await (side === 'ours' ? ours() : theirs()));
    }
  }
  return samples;
}
const medianOf = (list, key) => (list.length === 0 ? undefined : median(list.map((s) => s[key])));

try {
  const { createSandbox } = await importDist('packages/sandbox/dist/index.js');
  const executor = await importDist('packages/executor/dist/index.js');
  const rounds = quick ? 2 : 3;

  // ── Guest code over 50 MB ──
  if (wanted('guest')) {
    const context = text(50_000_000);
    const path = fileOf('ascii.txt', context);
    const sandbox = await createSandbox({ isolation: 'worker', context });
    await reference?.call('load', { file: path });
    const guestRows = [
      [
        'regex search over 50 MB from guest code, character class',
        `(context.match(/${REGEX}/g) || []).length`,
        `import re\nprint(len(re.findall(r"${REGEX}", context)))`,
      ],
      [
        'regex search over 50 MB from guest code, literal-prefix pattern',
        `(context.match(/${GREP}/g) || []).length`,
        `import re\nprint(len(re.findall(r"${GREP}", context)))`,
      ],
      [
        'indexOf over 50 MB (needle absent)',
        'context.indexOf("NOT-IN-THE-TEXT")',
        'print(context.find("NOT-IN-THE-TEXT"))',
      ],
      [
        "split('\\n') over 50 MB",
        'context.split("\\n").length',
        'print(len(context.split("\\n")))',
      ],
    ];
    for (const [what, js, py] of guestRows) {
      const samples = await alternate(
        rounds,
        async () => {
          const started = performance.now();
          const result = await sandbox.execute(js);
          if (result.error) throw new Error(`${js}: ${result.error.message}`);
          return { wallMs: performance.now() - started };
        },
        () => reference.call('exec', { code: py }),
      );
      table.row(what, {
        goal: '≤ 1×',
        ours: medianOf(samples.ours, 'wallMs'),
        theirs: medianOf(samples.theirs, 'wallMs'),
        unit: 'ms',
        ratioGoal: 1,
      });
    }
    await sandbox.dispose();
    await reference?.call('load', { text: '' });

    // The whole run: load, turn 0 prints the length, turn 1 greps with a regex, turn 2 answers.
    const samples = await alternate(
      quick ? 1 : 2,
      async () => {
        const started = performance.now();
        const rlm = executor.createRLM({
          model: model('bench/root', (request) => {
            const turn = turnOf(request);
            if (turn === 0) return repl('print(context.length)');
            if (turn === 1) return repl(`print((context.match(/${GREP}/g) || []).length)`);
            return 'FINAL(done)';
          }),
          firstTurnGuard: false,
        });
        await rlm.completion(context, { query: 'How many codes?' });
        return { wallMs: performance.now() - started };
      },
      async () =>
        referenceOnce('run3', {
          file: path,
          blocks: [
            'print(len(context))',
            `import re\nprint(len(re.findall(r"${GREP}", context)))`,
            ANSWER_PY,
          ],
        }),
    );
    table.row('3-iteration run over 50 MB with guest regex `/NEEDLE-[0-9]+/g` (incl. load)', {
      goal: '≤ 1.5×',
      ours: medianOf(samples.ours, 'wallMs'),
      theirs: medianOf(samples.theirs, 'wallMs'),
      unit: 'ms',
      ratioGoal: 1.5,
    });
  }

  // ── Loads: 50 MB of ASCII, Latin-1 and UTF-16 text ──
  for (const encoding of wanted('load') ? ['ascii', 'latin1', 'utf16'] : []) {
    const context = text(50_000_000, encoding);
    const path = fileOf(`${encoding}.txt`, context);
    for (const isolation of ['inline', 'worker']) {
      const samples = await alternate(
        rounds,
        async () => {
          const started = performance.now();
          const sandbox = await createSandbox({ isolation, context });
          const took = performance.now() - started;
          await sandbox.dispose();
          return { wallMs: took };
        },
        async () => {
          const loaded = await reference.call('load', { file: path });
          await reference.call('load', { text: '' });
          return loaded;
        },
      );
      table.row(`50 MB load, ${encoding}, ${isolation}`, {
        goal: encoding === 'ascii' ? '≤ 1×' : '—',
        ours: medianOf(samples.ours, 'wallMs'),
        theirs: medianOf(samples.theirs, 'wallMs'),
        unit: 'ms',
        ratioGoal: encoding === 'ascii' ? 1 : undefined,
      });
    }
  }

  // ── Per iteration, from a cold process: first run of TURNS turns ──
  for (const [isolation, ratioGoal] of wanted('turns')
    ? [
        ['inline', 1.5],
        ['worker', 2],
      ]
    : []) {
    const samples = await alternate(
      rounds,
      () => inChild('turns', [`--isolation=${isolation}`]),
      () => referenceOnce('turns', { turns: TURNS, block: REFERENCE_BLOCK }),
    );
    const ours = perTurnStats(samples.ours.flatMap((s) => s.turns));
    const theirs = perTurnStats(samples.theirs.flatMap((s) => s.turns.slice(1)));
    const note = `first run of ${TURNS} turns in each of ${rounds} fresh processes, turns 1 on`;
    table.row(`per iteration, ${isolation}, cold process (median wall)`, {
      goal: `≤ ${ratioGoal}×`,
      ours: ours.wallMedian,
      theirs: theirs.wallMedian,
      unit: 'µs',
      ratioGoal,
      note,
    });
    table.row(`  CPU per iteration, ${isolation}: mean`, {
      goal: '≤ 2×',
      ours: ours.cpuMean,
      theirs: theirs.cpuMean,
      unit: 'µs',
      ratioGoal: 2,
    });
    table.row(`  CPU per iteration, ${isolation}: p90`, {
      goal: '—',
      ours: ours.cpuP90,
      theirs: theirs.cpuP90,
      unit: 'µs',
    });
  }

  // ── Warm create + dispose, CPU (the window includes 250 ms after dispose: a pooled worker
  // prepares its next engine then, and that belongs to the cycle) ──
  for (const isolation of wanted('create') ? ['inline', 'worker'] : []) {
    await (await createSandbox({ isolation })).dispose();
    const samples = await alternate(
      quick ? 6 : 15,
      async () => {
        const before = cpuMs();
        const sandbox = await createSandbox({ isolation });
        await sandbox.dispose();
        await sleep(250);
        return { cpuMs: cpuMs() - before };
      },
      () => reference.call('create-dispose'),
    );
    table.row(`warm create + dispose CPU, ${isolation}`, {
      goal: '≤ 1.5×',
      ours: medianOf(samples.ours, 'cpuMs'),
      theirs: medianOf(samples.theirs, 'cpuMs'),
      unit: 'ms',
      ratioGoal: 1.5,
    });
  }

  // ── First invocation in a fresh process ──
  for (const isolation of wanted('first') ? ['inline', 'worker'] : []) {
    const samples = await alternate(
      rounds,
      () => inChild('first', [`--isolation=${isolation}`]),
      () => referenceOnce('first-invocation', { block: REFERENCE_BLOCK }),
    );
    table.row(`first invocation CPU in a fresh process, ${isolation}`, {
      goal: '≤ 50 ms',
      ours: medianOf(samples.ours, 'cpuMs'),
      theirs: medianOf(samples.theirs, 'cpuMs'),
      unit: 'ms',
      absoluteGoal: 50,
    });
  }

  // ── `rlm --version` ──
  if (wanted('version')) {
    const bin = join(repoRoot, 'apps/cli/dist/bin.js');
    const times = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      execFileSync(process.execPath, [bin, '--version'], { stdio: 'ignore' });
      times.push(performance.now() - started);
    }
    table.row('`rlm --version` wall (median of 5)', {
      goal: '≤ 150 ms',
      ours: median(times),
      unit: 'ms',
      absoluteGoal: 150,
      noCounterpart: true,
    });
  }

  // ── RSS per live sandbox with a 1 MiB context ──
  if (wanted('rss')) {
    const path = fileOf('one-mib.txt', text(MIB));
    for (const [isolation, goal] of [
      ['inline', 4],
      ['worker', 8],
    ]) {
      const samples = await alternate(
        quick ? 1 : 2,
        () => inChild('rss', [`--isolation=${isolation}`]),
        async () => referenceOnce('rss-per-env', { file: path, count: 10 }),
      );
      table.row(`RSS per live sandbox, 1 MiB context, ${isolation}`, {
        goal: `≤ ${goal} MB`,
        ours: medianOf(samples.ours, 'mbPerSandbox'),
        theirs: medianOf(samples.theirs, 'mbPerEnv'),
        unit: 'MB',
        absoluteGoal: goal,
      });
    }
  }

  // ── First helper call on a 50 MB worker sandbox right after create, against a warm call ──
  if (wanted('helper')) {
    const context = text(50_000_000);
    const ratios = [];
    const firsts = [];
    for (let round = 0; round < (quick ? 2 : 3); round++) {
      const sandbox = await createSandbox({ isolation: 'worker', context });
      const call = async () => {
        const result = await sandbox.execute('await count("NEEDLE-4242")');
        if (result.error) throw new Error(result.error.message);
        return result.executionTime;
      };
      const first = await call();
      const warm = median([await call(), await call(), await call()]);
      firsts.push(first);
      ratios.push(first / warm);
      await sandbox.dispose();
    }
    table.row('first helper call on a 50 MB worker sandbox right after create / a warm call', {
      goal: '≤ 3×',
      ours: median(ratios),
      unit: '×',
      absoluteGoal: 3,
      noCounterpart: true,
      note: `first call ${median(firsts).toFixed(0)} ms`,
    });
  }

  // ── Peak RSS of the 3-iteration 50 MB run with helpers ──
  if (wanted('peak')) {
    const path = fileOf('peak.txt', compactText(50_000_000));
    const samples = await alternate(
      quick ? 1 : 3,
      () => inChild('peak'),
      async () =>
        referenceOnce('run3', {
          file: path,
          blocks: [
            'print(len(context))',
            `import re\nprint(len(re.findall(r"${GREP}", context)))`,
            ANSWER_PY,
          ],
        }),
    );
    table.row('peak RSS, 3-iteration 50 MB run with helpers (worker)', {
      goal: '≤ 255 MB',
      ours: medianOf(samples.ours, 'peakMb'),
      theirs: medianOf(samples.theirs, 'peakRssMb'),
      unit: 'MB',
      absoluteGoal: 255,
    });
  }

  // ── The Python REPL's `re` and `str` methods over 50 MB (bench/side-by-side-python.mjs) ──
  if (wanted('python')) {
    await pythonSection({ importDist, reference, alternate, fileOf, rounds, table });
  }

  table.print();
} finally {
  reference?.close();
  rmSync(dir, { recursive: true, force: true });
}
// Worker pools keep idle workers alive; the numbers are out, so end here.
process.exit(0);
