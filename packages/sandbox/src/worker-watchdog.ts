import { readWatchdogCell } from './engine/watchdog-cell.js';
import type { ResetReason } from './sandbox-reset.js';

/** How often a busy worker's published deadline is checked. */
export const WATCHDOG_POLL_MS = 100;
/**
 * How far past its deadline guest code may run before its worker is terminated. The engine's
 * interrupt handler stops ordinary code within milliseconds of the deadline; only a native builtin
 * that never returns to it gets here (or a thread a very busy machine did not schedule for this
 * long, which is why the grace is not shorter).
 */
export const OVERRUN_GRACE_MS = 2_000;
/**
 * How long an aborted request may take to answer before its worker is terminated: short, so
 * `execute()` settles within about a second of an abort, whatever guest code is doing.
 */
export const ABORT_GRACE_MS = 750;

/** One request being watched (see `EngineWatch.begin`). */
export interface Watched {
  /** Epoch ms past which a worker that has not answered is terminated (`Infinity`: never). */
  readonly unresponsiveAt: number;
  /** Started when the request is aborted. */
  abortTimer?: NodeJS.Timeout;
}

/**
 * Watches the requests to one worker from outside its engine: terminates (through `onKill`, called
 * at most once) a worker whose guest code runs `OVERRUN_GRACE_MS` past the deadline it published,
 * that has not answered `ABORT_GRACE_MS` after a request was aborted, or that has not answered a
 * request by its own last-resort deadline. One poll serves every request: it starts with the first
 * and stops at the first tick that finds none, so a sandbox driven block after block sets up no
 * timer per block. Its timers never keep the process alive.
 */
export class EngineWatch {
  readonly #cell: SharedArrayBuffer;
  readonly #onKill: (reason: ResetReason) => void;
  readonly #watched = new Set<Watched>();
  #poll: NodeJS.Timeout | undefined;
  #killed = false;

  /** `cell`: the worker's watchdog cell (see watchdog-cell.ts). */
  constructor(cell: SharedArrayBuffer, onKill: (reason: ResetReason) => void) {
    this.#cell = cell;
    this.#onKill = onKill;
  }

  /** Starts watching a request; `unresponsiveMs`: how long it may go unanswered at most. */
  begin(unresponsiveMs = Number.POSITIVE_INFINITY): Watched {
    const watched: Watched = { unresponsiveAt: Date.now() + unresponsiveMs };
    this.#watched.add(watched);
    if (this.#poll === undefined && !this.#killed) {
      this.#poll = setInterval(() => this.#tick(), WATCHDOG_POLL_MS);
      this.#poll.unref();
    }
    return watched;
  }

  /** The request was aborted: it has `ABORT_GRACE_MS` to answer. */
  aborted(watched: Watched): void {
    if (!this.#watched.has(watched) || watched.abortTimer !== undefined) return;
    watched.abortTimer = setTimeout(() => this.#kill('aborted'), ABORT_GRACE_MS);
    watched.abortTimer.unref();
  }

  /** The request was answered (or given up on). */
  end(watched: Watched): void {
    this.#watched.delete(watched);
    clearTimeout(watched.abortTimer);
  }

  /** Stops watching everything (the worker is gone or no longer this sandbox's). */
  stop(): void {
    for (const watched of this.#watched) clearTimeout(watched.abortTimer);
    this.#watched.clear();
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  #tick(): void {
    if (this.#watched.size === 0) {
      clearInterval(this.#poll);
      this.#poll = undefined;
      return;
    }
    const now = Date.now();
    const running = readWatchdogCell(this.#cell);
    if (running !== undefined && now > running.deadline + OVERRUN_GRACE_MS) {
      this.#kill(running.kind);
      return;
    }
    for (const watched of this.#watched) {
      if (now > watched.unresponsiveAt) {
        this.#kill('wall');
        return;
      }
    }
  }

  #kill(reason: ResetReason): void {
    if (this.#killed) return;
    this.#killed = true;
    this.stop();
    this.#onKill(reason);
  }
}
