import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { REPLResult } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { compiledEngine } from './engine/load-quickjs.js';
import { newWatchdogBuffer } from './engine/watchdog-cell.js';
import { resolveLimits } from './sandbox-options.js';
import type { FromWorker, ToWorker, WorkerBoot } from './worker-messages.js';
import { WorkerPool } from './worker-pool.js';

/** Specifiers a compiled module loads when it is imported (dynamic `import()` is not followed). */
function staticImports(source: string): string[] {
  const pattern = /^(?:import|export)\s[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? '');
}

/**
 * The packages a worker loads at start-up from `entry`, following our own modules (relative
 * imports and `@rlm/*` packages, resolved as Node would) and listing every other package.
 */
function packagesLoadedBy(entry: URL): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: URL): void => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(new URL(specifier, file));
      else if (specifier.startsWith('@rlm/')) {
        packages.add(specifier);
        visit(new URL(import.meta.resolve(specifier)));
      } else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

// Runs on the build (the test script builds first): that is what a worker really imports.
const dist = (file: string): URL => new URL(`../dist/${file}`, import.meta.url);

describe('the sandbox worker entry', () => {
  it('loads no zod and only the zod-free core of @rlm/protocol, so a fresh worker starts fast', () => {
    const packages = packagesLoadedBy(dist('sandbox-worker.js'));
    expect(packages.has('@rlm/protocol/core')).toBe(true);
    expect(packages.has('quickjs-emscripten-core')).toBe(true);
    expect(packages.has('@rlm/protocol')).toBe(false);
    expect([...packages].filter((name) => name === 'zod' || name.startsWith('zod/'))).toEqual([]);
  });

  it('is checked by a walk that does see zod where it is loaded', () => {
    const packages = packagesLoadedBy(dist('index.js'));
    expect(packages.has('zod')).toBe(true);
    expect(packages.has('@rlm/protocol')).toBe(true);
  });
});

async function boot(memoryBytes = 16 * 1024 * 1024): Promise<WorkerBoot> {
  const limits = resolveLimits({ memoryBytes }, 'worker');
  const init = { contexts: [], meta: {}, functionNames: [], helperNames: [], limits };
  return {
    type: 'boot',
    init: { ...init, compiled: await compiledEngine() },
    abortFlag: new SharedArrayBuffer(4),
    watchdog: newWatchdogBuffer(),
  };
}

/** The next message from the worker of the given type. */
async function next(worker: Worker, type: FromWorker['type']): Promise<FromWorker> {
  for (;;) {
    const [message] = (await once(worker, 'message')) as [FromWorker];
    if (message.type === type) return message;
  }
}

describe('the sandbox worker protocol', () => {
  it('serves one session per boot and ignores late messages between sessions', async () => {
    const worker = new WorkerPool().take();
    try {
      // The second session must not see the first one's variable.
      for (const code of ['var a = 1; a === 1', "typeof a === 'undefined'"]) {
        // A stray message before the boot (news for an ended session) must not be taken for one.
        worker.postMessage({ type: 'abort', id: 1 } satisfies ToWorker);
        const ready = next(worker, 'ready');
        worker.postMessage(await boot());
        await ready;
        const replied = next(worker, 'reply');
        worker.postMessage({
          type: 'request',
          id: 1,
          request: { type: 'execute', code },
        } satisfies ToWorker);
        const reply = await replied;
        expect(reply).toMatchObject({ ok: true });
        const result = (reply as { value: REPLResult }).value;
        expect(result.error).toBeNull();
        expect(result.stdout.trim()).toBe('true');
        const reset = next(worker, 'reply');
        worker.postMessage({ type: 'request', id: 2, request: { type: 'dispose' } });
        expect(await reset).toMatchObject({ id: 2, ok: true });
      }
    } finally {
      await worker.terminate();
    }
  });
});

/** Boots a session, runs `code` (which must print `true`), ends it; whether it started prepared. */
async function session(worker: Worker, code: string, memoryBytes?: number): Promise<boolean> {
  const ready = next(worker, 'ready');
  worker.postMessage(await boot(memoryBytes));
  const { prepared } = (await ready) as { prepared: boolean };
  const replied = next(worker, 'reply');
  worker.postMessage({
    type: 'request',
    id: 1,
    request: { type: 'execute', code },
  } satisfies ToWorker);
  const result = ((await replied) as { value: REPLResult }).value;
  expect(result.error).toBeNull();
  expect(result.stdout.trim()).toBe('true');
  const reset = next(worker, 'reply');
  worker.postMessage({ type: 'request', id: 2, request: { type: 'dispose' } } satisfies ToWorker);
  expect(await reset).toMatchObject({ id: 2, ok: true });
  return prepared;
}

describe('the blank engine a waiting worker prepares', () => {
  it('starts the next session of the same memory size, never one of another size', async () => {
    const worker = new WorkerPool().take();
    const MiB = 1024 * 1024;
    try {
      // A fresh worker has none; the pool's spares get a prepare message.
      expect(await session(worker, 'var a = 1; a === 1')).toBe(false);
      // Built after the first session ended: none of its state.
      expect(await session(worker, "var b = 2; typeof a === 'undefined'")).toBe(true);
      expect(await session(worker, "typeof b === 'undefined'", 32 * MiB)).toBe(false);
      expect(await session(worker, 'true', 32 * MiB)).toBe(true);
      worker.postMessage({ type: 'prepare', memoryBytes: 16 * MiB });
      expect(await session(worker, "typeof b === 'undefined'")).toBe(true);
    } finally {
      await worker.terminate();
    }
  });

  it('is prepared by a spare the pool starts with a prepare message', async () => {
    const pool = new WorkerPool();
    pool.warm({ type: 'prepare', memoryBytes: 16 * 1024 * 1024, compiled: await compiledEngine() });
    const spare = pool.take();
    try {
      expect(await session(spare, 'true')).toBe(true);
    } finally {
      await spare.terminate();
    }
  });
});

describe('aborts on the worker', () => {
  it('reach the request they name, never the next one, which awaits a host call as usual', async () => {
    const worker = new WorkerPool().take();
    try {
      const started = await boot();
      started.init.functionNames = ['ask'];
      const ready = next(worker, 'ready');
      worker.postMessage(started);
      await ready;

      // Request 1 awaits a host call that never answers, and is aborted.
      let called = next(worker, 'hostCall');
      let replied = next(worker, 'reply');
      worker.postMessage({
        type: 'request',
        id: 1,
        request: { type: 'execute', code: 'var r = await ask()' },
      } satisfies ToWorker);
      await called;
      worker.postMessage({ type: 'abort', id: 1 } satisfies ToWorker);
      const aborted = (await replied) as { id: number; value: REPLResult };
      expect(aborted.id).toBe(1);
      expect(aborted.value.error?.code).toBe('sandbox.aborted');

      // Request 2 awaits a host call too; the late abort of request 1 arrives meanwhile.
      called = next(worker, 'hostCall');
      replied = next(worker, 'reply');
      worker.postMessage({
        type: 'request',
        id: 2,
        request: { type: 'execute', code: 'var s = await ask(); print(s)' },
      } satisfies ToWorker);
      const { callId } = (await called) as { callId: number };
      worker.postMessage({ type: 'abort', id: 1 } satisfies ToWorker);
      worker.postMessage({
        type: 'hostResult',
        callId,
        ok: true,
        text: JSON.stringify('answered'),
      } satisfies ToWorker);
      const answered = (await replied) as { id: number; value: REPLResult };
      expect(answered.id).toBe(2);
      expect(answered.value.error).toBeNull();
      expect(answered.value.stdout.trim()).toBe('answered');

      // And request 3 runs with nothing aborted either.
      replied = next(worker, 'reply');
      worker.postMessage({
        type: 'request',
        id: 3,
        request: { type: 'execute', code: 'print(s + "!")' },
      } satisfies ToWorker);
      expect(((await replied) as { value: REPLResult }).value.stdout.trim()).toBe('answered!');
    } finally {
      await worker.terminate();
    }
  });
});
