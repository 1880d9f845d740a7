import { InterpreterProcess } from './interpreter-process.js';

/** Most spare interpreters kept ready across all memory sizes. */
export const MAX_SPARE_INTERPRETERS = 8;
/** A spare unused this long is killed, so a quiet process gives its memory back. */
export const SPARE_TTL_MS = 300_000;

interface Spare {
  interpreter: InterpreterProcess;
  timer: NodeJS.Timeout;
}

/**
 * Loaded, never-used interpreters, so creating a Python sandbox is a hand-off rather than a
 * multi-second load. Interpreters are never reused: a used one may hold anything model code left
 * behind, so it is killed with its sandbox and a fresh spare takes its place.
 *
 * The first interpreter of the host process loads from scratch and takes a memory snapshot of the
 * freshly loaded interpreter; every later one starts from that snapshot (several times faster).
 * The snapshot (about 21 MB) stays in the host's memory. Spares are processes the host does not
 * wait for (they never keep it alive) and are killed after `SPARE_TTL_MS` unused.
 */
export class InterpreterPool {
  readonly #spares: Spare[] = [];
  /** Spares wanted per memory size: raised by `prewarm`, 1 for any size a sandbox has used. */
  readonly #targets = new Map<number, number>();
  #snapshot: Promise<Uint8Array | null> | undefined;

  /** A spare of this memory size (loaded or still loading), or a freshly started interpreter. */
  take(memoryBytes: number): InterpreterProcess {
    const index = this.#spares.findIndex(
      (spare) =>
        spare.interpreter.memoryBytes === memoryBytes && spare.interpreter.exitReason === undefined,
    );
    const spare = index === -1 ? undefined : this.#spares.splice(index, 1)[0];
    if (spare !== undefined) clearTimeout(spare.timer);
    const interpreter = spare?.interpreter ?? this.#spawn(memoryBytes);
    interpreter.hold(true);
    if (!this.#targets.has(memoryBytes)) this.#targets.set(memoryBytes, 1);
    return interpreter;
  }

  /** Starts spares until `count` of this memory size are waiting (bounded by the pool's cap). */
  prewarm(memoryBytes: number, count: number): Promise<void> {
    this.#targets.set(memoryBytes, Math.max(count, this.#targets.get(memoryBytes) ?? 0));
    this.refill(memoryBytes);
    // Someone waits for these: they keep the host alive until loaded, then become idle spares.
    const loading = this.#spares
      .filter((spare) => spare.interpreter.memoryBytes === memoryBytes)
      .map(({ interpreter }) => {
        interpreter.hold(true);
        return interpreter.loaded.then(
          () => this.#release(interpreter),
          (error: unknown) => {
            this.#release(interpreter);
            throw error;
          },
        );
      });
    return Promise.all(loading).then(() => undefined);
  }

  /** Tops the spares of this memory size up to their target. */
  refill(memoryBytes: number): void {
    this.#forgetDead();
    const target = this.#targets.get(memoryBytes) ?? 0;
    let have = this.#spares.filter((spare) => spare.interpreter.memoryBytes === memoryBytes).length;
    while (have < target && this.#spares.length < MAX_SPARE_INTERPRETERS) {
      this.#keep(this.#spawn(memoryBytes));
      have += 1;
    }
  }

  /** How many spares wait (loaded or loading). */
  get spareCount(): number {
    this.#forgetDead();
    return this.#spares.length;
  }

  /** Kills every spare and forgets the targets (the snapshot is kept). */
  close(): void {
    for (const spare of this.#spares.splice(0)) {
      clearTimeout(spare.timer);
      spare.interpreter.kill();
    }
    this.#targets.clear();
  }

  #spawn(memoryBytes: number): InterpreterProcess {
    if (this.#snapshot === undefined) {
      const first = InterpreterProcess.spawn({
        memoryBytes,
        snapshot: Promise.resolve(null),
        makeSnapshot: true,
      });
      // If the first load fails, the next interpreter tries again.
      this.#snapshot = first.loaded.catch(() => {
        this.#snapshot = undefined;
        return null;
      });
      return first;
    }
    return InterpreterProcess.spawn({ memoryBytes, snapshot: this.#snapshot, makeSnapshot: false });
  }

  /** Lets a spare that was waited for go idle again (unless it was taken meanwhile). */
  #release(interpreter: InterpreterProcess): void {
    if (this.#spares.some((spare) => spare.interpreter === interpreter)) interpreter.hold(false);
  }

  #keep(interpreter: InterpreterProcess): void {
    interpreter.hold(false);
    const timer = setTimeout(() => {
      const index = this.#spares.findIndex((spare) => spare.interpreter === interpreter);
      if (index !== -1) this.#spares.splice(index, 1);
      interpreter.kill();
    }, SPARE_TTL_MS);
    timer.unref();
    this.#spares.push({ interpreter, timer });
  }

  #forgetDead(): void {
    for (let i = this.#spares.length - 1; i >= 0; i--) {
      const spare = this.#spares[i];
      if (spare !== undefined && spare.interpreter.exitReason !== undefined) {
        clearTimeout(spare.timer);
        this.#spares.splice(i, 1);
      }
    }
  }
}

/**
 * The host process's pool. A cache, not shared state: every sandbox gets an interpreter no other
 * sandbox has touched, so which one it gets has no observable effect beyond start-up time.
 */
export const interpreterPool = new InterpreterPool();
