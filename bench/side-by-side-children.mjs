// What bench/side-by-side.mjs measures in processes of its own (it forks itself with --child=…),
// and the text every measure uses.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  model,
  REFERENCE_BLOCK,
  repl,
  turnOf,
} from '../packages/executor/bench/reference-turn.mjs';
import { haystack } from '../scripts/bench/targets-table.mjs';

const repoRoot = new URL('../', import.meta.url).pathname;
const importDist = (path) => import(pathToFileURL(join(repoRoot, path)).href);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
export const MIB = 1_048_576;
export const TURNS = 50;
export const REGEX = '[0-9]{4}-[A-Z]{3}';
/** The pattern the runs grep with: a literal prefix, which CPython's `re` scans for quickly. */
export const GREP = 'NEEDLE-[0-9]+';

/** The bench's text: log lines (codes like 2024-ABC in some), as ASCII, Latin-1 or with UTF-16. */
export function text(bytes, encoding = 'ascii') {
  const ascii = haystack(bytes)
    .split('\n')
    .map((line, i) =>
      i % 7 === 0 ? line.replace('status=ok', `status=${1000 + (i % 9000)}-XYZ`) : line,
    )
    .join('\n')
    .slice(0, bytes);
  if (encoding === 'latin1') return ascii.replaceAll('ipsum', 'ipsüm');
  if (encoding === 'utf16') return ascii.replaceAll('ipsum', 'ips😀').replaceAll('dolor', '多lor');
  return ascii;
}

/**
 * `bytes` of the same kind of text made with little garbage (one block of lines repeated): for
 * peak RSS, where the garbage of making the text would count as the run's.
 */
export function compactText(bytes) {
  return text(1_000_000)
    .repeat(Math.ceil(bytes / 1_000_000))
    .slice(0, bytes);
}

// ── Measures that need a process of their own (fork of this file with --child=…) ──
export const childTasks = {
  /** The first run of TURNS turns in a fresh process: per-turn wall and CPU (all threads). */
  async turns({ isolation }) {
    const executor = await importDist('packages/executor/dist/index.js');
    const marks = [];
    const root = model('bench/root', (request) =>
      turnOf(request) === TURNS - 1 ? 'FINAL(done)' : repl(REFERENCE_BLOCK),
    );
    const rlm = executor.createRLM({
      model: root,
      maxIterations: TURNS,
      isolation,
      firstTurnGuard: false,
      onEvent: (event) => {
        if (event.type === 'iteration-start' || event.type === 'final-answer') {
          marks.push({ wall: performance.now(), cpu: cpuMs() });
        }
      },
    });
    await rlm.completion('context');
    // Turn 0 also waits for the sandbox to start: turns 1… are the per-iteration figure.
    const turns = [];
    for (let i = 2; i < marks.length; i++) {
      turns.push({
        wallMs: marks[i].wall - marks[i - 1].wall,
        cpuMs: marks[i].cpu - marks[i - 1].cpu,
      });
    }
    return { turns };
  },
  /** CPU of the first one-turn run in a fresh process, after the imports. */
  async first({ isolation }) {
    const executor = await importDist('packages/executor/dist/index.js');
    const before = cpuMs();
    const rlm = executor.createRLM({
      model: model('bench/root', (request) =>
        turnOf(request) === 0 ? `${repl(REFERENCE_BLOCK)}\nFINAL(done)` : 'FINAL(done)',
      ),
      isolation,
      firstTurnGuard: false,
    });
    await rlm.completion('context');
    return { cpuMs: cpuMs() - before };
  },
  /** Resident memory per live sandbox holding a context of exactly 1 MiB. */
  async rss({ isolation }) {
    const { createSandbox } = await importDist('packages/sandbox/dist/index.js');
    const context = text(MIB);
    const settled = async () => {
      globalThis.gc?.();
      await sleep(300);
      return process.memoryUsage().rss;
    };
    // Three sandboxes first, so the WASM module, the worker pool, the code and the garbage of
    // making the text are behind us; then the slope over ten more.
    const open = [];
    const more = async (count) => {
      for (let i = 0; i < count; i++) {
        const sandbox = await createSandbox({ isolation, context });
        await sandbox.execute('context.length');
        open.push(sandbox);
      }
    };
    await more(3);
    const count = 10;
    const before = await settled();
    await more(count);
    const after = await settled();
    return { mbPerSandbox: (after - before) / count / 2 ** 20 };
  },
  /** A 3-iteration run over 50 MB calling a host helper; peak RSS of the process. */
  async peak() {
    const executor = await importDist('packages/executor/dist/index.js');
    const context = compactText(50_000_000);
    const rlm = executor.createRLM({
      model: model('bench/root', (request) => {
        const turn = turnOf(request);
        if (turn === 0) return repl('print(context.length)');
        if (turn === 1) return repl(`print(await count(${JSON.stringify(GREP)}))`);
        return 'FINAL(done)';
      }),
      firstTurnGuard: false,
    });
    await rlm.completion(context, { query: 'How many codes?' });
    return { peakMb: process.resourceUsage().maxRSS / 1024 };
  },
};
