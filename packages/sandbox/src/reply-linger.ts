import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';

/**
 * How long a worker keeps polling its port after it answered a request. A loop that drives a
 * sandbox with no wait of its own (a zero-latency model, a script) sends its next request within
 * a few hundred µs; taken by polling, it finds the thread running and its caches warm, where a
 * thread that went to sleep pays for being woken and for a cold engine (measured: a trivial block
 * ~130 µs back to back against ~300 µs after a 1 ms pause).
 */
export const LINGER_MS = 0.5;

/**
 * A worker's poll after each reply, bounded and adaptive: it polls only while requests have been
 * arriving soon after replies. A request that came later than twice the window switches polling
 * off until one comes soon again, so a sandbox driven by a slow model burns at most one window
 * of CPU per switch rather than one per block.
 */
export class ReplyLinger {
  readonly #port: MessagePort;
  readonly #windowMs: number;
  #answeredAt: number | undefined;
  #polling = true;

  constructor(port: MessagePort, windowMs = LINGER_MS) {
    this.#port = port;
    this.#windowMs = windowMs;
  }

  /** A reply went out: from now until the next request is the gap that decides the next poll. */
  answered(): void {
    this.#answeredAt = performance.now();
  }

  /** A message reached the worker through its event loop (not by polling). */
  arrived(): void {
    if (this.#answeredAt === undefined) return;
    this.#polling = performance.now() - this.#answeredAt <= 2 * this.#windowMs;
    this.#answeredAt = undefined;
  }

  /**
   * Polls the port for up to the window, when polling is on; returns the message taken, which the
   * caller must handle as if it had come through the event loop (and which it no longer will).
   * Blocks this thread's event loop for at most the window: nothing else waits on it between
   * requests, and a terminate() still interrupts it (the loop is ordinary JavaScript).
   */
  poll(): { message: unknown } | undefined {
    if (!this.#polling || this.#windowMs <= 0) return undefined;
    const until = performance.now() + this.#windowMs;
    do {
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        this.#answeredAt = undefined;
        return received;
      }
    } while (performance.now() < until);
    return undefined;
  }
}
