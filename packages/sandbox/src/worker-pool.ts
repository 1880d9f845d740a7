import { Worker } from 'node:worker_threads';
import { scriptUrl } from './script-url.js';
import type { WorkerPrepare } from './worker-messages.js';

/** Native stack of the worker: room for QuickJS's 1 MiB guest stack limit plus host frames. */
const WORKER_STACK_MB = 32;
/**
 * Most idle workers kept: the executor's default concurrency, so a fan-out of child sandboxes
 * hands its workers on instead of starting new ones. An idle worker holds its isolate (~20–30 MB,
 * until its last sandbox's WASM memory is collected), so the pool is bounded and idle workers expire.
 */
export const MAX_IDLE_WORKERS = 8;
/** An idle worker unused this long is terminated, so a quiet process gives its memory back. */
export const IDLE_WORKER_TTL_MS = 30_000;

function spawnSandboxWorker(): Worker {
  // The worker's stdout/stderr stay piped and unread: reading them would keep the process alive.
  return new Worker(scriptUrl('./sandbox-worker.js', import.meta.url), {
    resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    stdout: true,
    stderr: true,
  });
}

/** What an idle worker holds while it waits: the listeners and timer that forget it. */
interface Idle {
  forget: () => void;
  timer: NodeJS.Timeout;
}

/**
 * Hands out sandbox workers: idle ones first, then a fresh one. Starting a worker costs a new V8
 * isolate plus importing the engine's module graph, so workers are reused:
 *
 * - a worker sandbox that is disposed cleanly resets its worker (the worker frees its QuickJS
 *   runtime and WASM instance, builds a fresh, never-used blank engine and waits for its next
 *   boot message) and gives it back (`give()`);
 * - once a worker sandbox is ready and nothing is idle, one spare is started in advance (`warm()`).
 *
 * Reuse shares no sandbox state: every sandbox still gets a fresh WASM instance with its own
 * memory, and guest code never reaches the worker's own JavaScript realm. Idle workers are
 * unref'd (they never keep the process alive), at most `MAX_IDLE_WORKERS` wait, one idle for
 * `IDLE_WORKER_TTL_MS` is terminated, and one that fails or exits while idle is forgotten.
 */
export class WorkerPool {
  /** Idle workers, most recently given last (taken first: its code is the warmest). */
  readonly #idle = new Map<Worker, Idle>();
  readonly #maxIdle: number;
  readonly #ttlMs: number;

  constructor({ maxIdle = MAX_IDLE_WORKERS, ttlMs = IDLE_WORKER_TTL_MS } = {}) {
    this.#maxIdle = maxIdle;
    this.#ttlMs = ttlMs;
  }

  /** The most recently idled worker, or a freshly started one: ref'd and ready for a boot message. */
  take(): Worker {
    const worker = [...this.#idle.keys()].at(-1);
    if (worker === undefined) return spawnSandboxWorker();
    this.#release(worker);
    worker.ref();
    return worker;
  }

  /**
   * Starts a spare unless a worker is idle. Called once a worker sandbox is ready rather than at
   * `take()`: two workers booting at once on a busy machine slow each other down. With `prepare`,
   * the spare also builds a blank engine of that size while it waits (see blank-engine.ts), so the
   * sandbox that takes it only installs the scaffold. (A worker given back builds its own.)
   */
  warm(prepare?: WorkerPrepare): void {
    if (this.#idle.size > 0) return;
    const spare = spawnSandboxWorker();
    if (prepare !== undefined) spare.postMessage(prepare);
    this.#keep(spare);
  }

  /**
   * Takes back a worker that was reset and is waiting for its next boot message. Past the cap it
   * is terminated instead. Only a worker whose sandbox was disposed cleanly may be given back.
   */
  give(worker: Worker): void {
    if (this.#idle.size >= this.#maxIdle) {
      void worker.terminate();
      return;
    }
    this.#keep(worker);
  }

  /** How many workers are idle. */
  get idleCount(): number {
    return this.#idle.size;
  }

  /** Terminates every idle worker (the next `take()` starts a fresh one). */
  async close(): Promise<void> {
    const workers = [...this.#idle.keys()];
    for (const worker of workers) this.#release(worker);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #keep(worker: Worker): void {
    worker.unref();
    const forget = (): void => {
      this.#release(worker);
    };
    const timer = setTimeout(() => {
      this.#release(worker);
      void worker.terminate();
    }, this.#ttlMs);
    timer.unref();
    worker.on('error', forget).on('exit', forget);
    this.#idle.set(worker, { forget, timer });
  }

  #release(worker: Worker): void {
    const idle = this.#idle.get(worker);
    if (idle === undefined) return;
    this.#idle.delete(worker);
    clearTimeout(idle.timer);
    worker.off('error', idle.forget).off('exit', idle.forget);
  }
}

/**
 * The process's pool. It is a cache, not shared state: a worker holds nothing of the sandbox
 * that used it once reset, so which worker a sandbox gets (or whether it is reused) has no
 * observable effect on any run; it only saves start-up time.
 */
export const workerPool = new WorkerPool();
