import type { Worker } from 'node:worker_threads';
import { isSharedText } from './context-ops/shared-text.js';
import { poisonedError } from './engine/engine-faults.js';
import type { CompiledEngine } from './engine/load-quickjs.js';
import { fromWireError } from './wire-error.js';
import type { FromWorker, WorkerBoot } from './worker-messages.js';
import { workerPool } from './worker-pool.js';

/**
 * Worker sandboxes this process has booted. The first one starts no spare: a process's first
 * sandbox is most often its only one (a CLI run, a script, a run at the default depth, whose
 * sub-calls need no sandbox), and a spare costs a V8 isolate and a blank engine (~100 ms of CPU,
 * 20–30 MB) that it would never use. From the second boot on, the process is one that uses
 * several, and each ready sandbox keeps one spare waiting as before.
 */
let boots = 0;

/**
 * Boots a sandbox engine on a worker from the pool and resolves with the worker once its engine
 * is ready. A pooled worker can die (killed, out of memory) between its last sandbox and this
 * boot; then the next one gets the boot. Each retry uses up a pooled worker, and a fresh worker
 * that dies before it is ready is a real failure, so this ends. The worker is taken (started,
 * when none is idle) before `boot` settles: a fresh thread's start overlaps what the boot still
 * waits for (compiling the engine, in a fresh process).
 *
 * @throws RlmError the engine's own start-up error, or `sandbox.poisoned` for a worker that died;
 *   what `boot` rejects with
 */
export async function bootWorker(boot: WorkerBoot | Promise<WorkerBoot>): Promise<Worker> {
  for (;;) {
    const pooled = workerPool.idleCount > 0;
    const worker = workerPool.take();
    let message: WorkerBoot;
    try {
      message = await boot;
    } catch (error) {
      // Still waiting for its first boot: as good as an idle worker.
      workerPool.give(worker);
      throw error;
    }
    try {
      worker.postMessage(message);
    } catch (error) {
      // A boot that cannot be cloned: the taken worker is ref'd and would keep the process alive.
      void worker.terminate();
      throw error;
    }
    const outcome = await started(worker);
    if (outcome.ok) {
      warmSpare(message);
      return worker;
    }
    if (pooled && outcome.lostBeforeReady) continue;
    throw outcome.error;
  }
}

/** Starts a spare worker for the next sandbox, once this one is ready (not for the first). */
function warmSpare(boot: WorkerBoot): void {
  boots += 1;
  if (boots === 1) return;
  // No spare beside a sandbox holding a long payload: the spare would hold an isolate and a
  // blank engine (about 15 MB) while this sandbox already holds the payload's copies, and the
  // next sandbox (a child's, with a small payload) starts a worker of its own soon enough.
  if (boot.init.contexts.some(isSharedText)) return;
  workerPool.warm({
    type: 'prepare',
    memoryBytes: boot.init.limits.memoryBytes,
    ...(boot.init.compiled === undefined ? {} : { compiled: boot.init.compiled }),
  });
}

/**
 * Starts a spare worker once a sandbox that held a long payload has been disposed cleanly (its
 * worker is terminated rather than handed on, see worker-sandbox.ts), in a process that has booted
 * more than one worker sandbox. Such a process most often goes on with another sandbox over a long
 * payload (the next run, the next file), and without a spare that sandbox starts a thread inside
 * its create: an isolate and the engine's module graph, measured at about as much CPU as copying a
 * 50 MB payload into it. The spare is built only once the payload's worker is gone, so it never sits
 * beside the payload's copies; like every idle worker it is unref'd and expires.
 */
export function warmSpareAfterLongPayload(memoryBytes: number, compiled?: CompiledEngine): void {
  if (boots < 2) return;
  workerPool.warm({
    type: 'prepare',
    memoryBytes,
    ...(compiled === undefined ? {} : { compiled }),
  });
}

type Started = { ok: true } | { ok: false; error: Error; lostBeforeReady: boolean };

function started(worker: Worker): Promise<Started> {
  return new Promise((resolve) => {
    const onMessage = (message: FromWorker): void => {
      if (message.type === 'ready') {
        cleanup();
        resolve({ ok: true });
      } else if (message.type === 'initFailed') {
        cleanup();
        void worker.terminate();
        resolve({ ok: false, error: fromWireError(message.error), lostBeforeReady: false });
      }
    };
    const onError = (error: Error): void => {
      cleanup();
      resolve({ ok: false, error, lostBeforeReady: true });
    };
    // Without this a worker that dies before answering (it may have been started long before,
    // as a spare) would leave the boot waiting forever.
    const onExit = (code: number): void => {
      cleanup();
      const error = poisonedError(`the worker exited (code ${code}) before it was ready`);
      resolve({ ok: false, error, lostBeforeReady: true });
    };
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
