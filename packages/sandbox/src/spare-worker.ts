import { Worker } from 'node:worker_threads';
import { scriptUrl } from './script-url.js';

/** Native stack of the worker: room for QuickJS's 1 MiB guest stack limit plus host frames. */
const WORKER_STACK_MB = 32;

function spawnSandboxWorker(): Worker {
  return new Worker(scriptUrl('./sandbox-worker.js', import.meta.url), {
    resourceLimits: { stackSizeMb: WORKER_STACK_MB },
    stdout: true,
    stderr: true,
  });
}

/**
 * Hands out sandbox workers, keeping at most one started in advance. Starting a worker costs a new
 * V8 isolate plus importing the engine's module graph (most of a worker sandbox's creation time);
 * a spare started when the previous worker sandbox became ready has usually finished that by the
 * next `take()`. The spare is unref'd, so an idle spare never keeps the process alive, and it is
 * only started on request (`warm()`, after a worker sandbox started), so inline-only programs never
 * pay for it.
 */
export class SpareWorkers {
  #spare: Worker | undefined;
  /** Forgets the spare when it fails or exits while idle; removed when the spare is taken. */
  #drop: () => void = () => {};

  /** The waiting spare, or a freshly started worker, ref'd and ready for its boot message. */
  take(): Worker {
    const spare = this.#spare;
    this.#spare = undefined;
    spare?.off('error', this.#drop).off('exit', this.#drop);
    const worker = spare ?? spawnSandboxWorker();
    worker.ref();
    return worker;
  }

  /**
   * Starts a spare unless one is waiting. Called once a worker sandbox is ready rather than at
   * `take()`: two workers booting at once on a busy machine slow each other down, which made
   * back-to-back creations slower than without a spare.
   */
  warm(): void {
    if (this.#spare !== undefined) return;
    const spare = spawnSandboxWorker();
    spare.unref();
    this.#drop = (): void => {
      if (this.#spare === spare) this.#spare = undefined;
    };
    spare.on('error', this.#drop).on('exit', this.#drop);
    this.#spare = spare;
  }

  /** Whether a spare is waiting. */
  get hasSpare(): boolean {
    return this.#spare !== undefined;
  }

  /** Stops the waiting spare, if any (the next `take()` starts a fresh worker). */
  async close(): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    spare?.off('error', this.#drop).off('exit', this.#drop);
    await spare?.terminate();
  }
}

/** One spare per process (each worker is an isolate of several MB, so no more than one waits). */
export const spareWorkers = new SpareWorkers();
