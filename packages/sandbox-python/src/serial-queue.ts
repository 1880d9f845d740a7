/**
 * Runs async tasks one at a time in call order: a second `execute()` issued while one runs waits
 * for it instead of interleaving with it.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
