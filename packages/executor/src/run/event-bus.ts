import type { RunEvent } from '@rlm/protocol';

/** Receives every event of a run tree, in order. Exceptions and rejections are swallowed. */
export type RunEventHandler = (event: RunEvent) => void | Promise<void>;

/**
 * Delivers a run tree's events synchronously, in emission order, to every listener. A listener that
 * throws (or rejects) never breaks the run, so a buggy UI callback cannot change an answer.
 */
export class EventBus {
  readonly #listeners: RunEventHandler[];

  constructor(listeners: readonly (RunEventHandler | undefined)[]) {
    this.#listeners = listeners.filter((listener) => listener !== undefined);
  }

  emit(event: RunEvent): void {
    for (const listener of this.#listeners) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch(() => undefined);
      } catch {
        // A handler's failure is the handler's problem; the run goes on.
      }
    }
  }
}
