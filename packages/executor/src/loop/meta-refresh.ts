import type { JsonValue, ReplEnvironment } from '@rlm/protocol';

type Meta = Record<string, JsonValue>;

/**
 * What JavaScript code needs to reach `__rlm` (or to read it later through a function it
 * defines): its name, or the global object (`globalThis`, a sloppy `this`), or code made from a
 * string (`eval`, `Function`, a `constructor`, `import`), or a name spelled with `\u` escapes.
 * Code with none of these cannot see `__rlm`, so it may run with an older one. The test is on the
 * text, comments and strings included, so it errs towards refreshing. `rlm_query` alone does not
 * count: it is a host function, not the metadata.
 */
const MAY_READ_META = /rlm(?!_query)|global|\bthis\b|eval|Function|constructor|import|\\u/;

/**
 * Keeps the sandbox's `__rlm` what code sees when it reads it, setting it only when it can be
 * read. Each turn with code has metadata of its own (`iteration`, the budget left), which used to
 * be set with the turn's first block whatever the block did: a setVariable a turn, the largest
 * cost of a trivial turn after the block itself. In lazy mode the sandbox gets the latest
 * metadata with the first block that may read it (see `MAY_READ_META`); from then on every turn
 * sets it, as before, since code that read it once may keep a function that reads it again. A
 * `FINAL_VAR` in the text naming it is read after the same refresh.
 *
 * Eager mode (Python code, a session's shared sandbox, a root that checkpoints or resumes) sets
 * it with each turn's first block, exactly as before: there the text test does not apply, or the
 * sandbox ran code this object never saw.
 */
export class MetaRefresh {
  readonly #eager: boolean;
  /** What code reading `__rlm` now must see; `undefined` while the sandbox's own is current. */
  #wanted: Meta | undefined;
  /** The metadata last given to the sandbox (`undefined`: the one it was opened with). */
  #held: Meta | undefined;
  /** Code that may read `__rlm` has run: every later turn refreshes it with its first block. */
  #read = false;
  /** The last `reading` view, reused while the sandbox is the same (one a run). */
  #view: { of: ReplEnvironment; view: ReplEnvironment } | undefined;

  constructor({ eager }: { eager: boolean }) {
    this.#eager = eager;
  }

  /** The metadata of a turn whose blocks are about to run. */
  next(meta: Meta): void {
    this.#wanted = meta;
  }

  /** The variables `code` runs with: `__rlm` when it may read it and the sandbox's is older. */
  variablesFor(code: string): { __rlm: Meta } | undefined {
    if (!this.#eager && !this.#read) {
      if (!MAY_READ_META.test(code)) return undefined;
      this.#read = true;
    }
    return this.#take();
  }

  /**
   * `sandbox`, whose `getVariable` first brings `__rlm` up to date when the name asked for could
   * be it (a `FINAL_VAR` in the text is read with the host's `getVariable`).
   */
  reading(sandbox: ReplEnvironment): ReplEnvironment {
    if (this.#eager) return sandbox;
    if (this.#view?.of !== sandbox) this.#view = { of: sandbox, view: this.#readingView(sandbox) };
    return this.#view.view;
  }

  #readingView(sandbox: ReplEnvironment): ReplEnvironment {
    return {
      execute: (code, options) => sandbox.execute(code, options),
      getVariable: async (name, options) => {
        const variables = name.includes('rlm') ? this.#take() : undefined;
        if (variables !== undefined) await sandbox.setVariable('__rlm', variables.__rlm);
        return sandbox.getVariable(name, options);
      },
      setVariable: (name, value) => sandbox.setVariable(name, value),
      listVariables: () => sandbox.listVariables(),
      dispose: () => sandbox.dispose(),
    };
  }

  #take(): { __rlm: Meta } | undefined {
    const wanted = this.#wanted;
    if (wanted === undefined || wanted === this.#held) return undefined;
    this.#held = wanted;
    return { __rlm: wanted };
  }
}
