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
 * Hands out sandbox workers, keeping one started in advance. Starting a worker costs a new V8
 * isolate plus importing the engine's module graph (most of a worker sandbox's creation time);
 * a spare started after the previous hand-out has usually finished that by the next `take()`.
 * The spare is unref'd, so an idle spare never keeps the process alive, and it is started only
 * once a worker sandbox has been created, so inline-only programs never pay for it.
 */
export class SpareWorkers {
  #spare: Worker | undefined;
  /** Forgets the spare when it fails or exits while idle; removed when the spare is taken. */
  #drop: () => void = () => {};

  /** A worker ready for its boot message (see sandbox-worker.ts), ref'd; starts the next spare. */
  take(): Worker {
    const spare = this.#spare;
    this.#spare = undefined;
    spare?.off('error', this.#drop).off('exit', this.#drop);
    const worker = spare ?? spawnSandboxWorker();
    worker.ref();
    this.#refill();
    return worker;
  }

  /** Whether a spare is waiting (for tests). */
  get hasSpare(): boolean {
    return this.#spare !== undefined;
  }

  /** Stops the waiting spare, if any (the next `take()` starts a fresh worker). */
  async close(): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    await spare?.terminate();
  }

  #refill(): void {
    const spare = spawnSandboxWorker();
    spare.unref();
    // A spare that fails or exits while idle is dropped; the next take() starts a fresh worker.
    this.#drop = (): void => {
      if (this.#spare === spare) this.#spare = undefined;
    };
    spare.on('error', this.#drop).on('exit', this.#drop);
    this.#spare = spare;
  }
}

/** One spare per process (each worker is an isolate of several MB, so no more than one waits). */
export const spareWorkers = new SpareWorkers();
