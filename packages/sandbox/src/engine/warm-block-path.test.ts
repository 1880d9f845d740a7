import { beforeEach, describe, expect, it, vi } from 'vitest';

/** A fresh copy of the modules, so each test starts on a thread that ran no warm-up. */
async function fresh() {
  vi.resetModules();
  const warmUp = await import('./warm-block-path.js');
  const { QuickJsEngine } = await import('./quickjs-engine.js');
  const { toSharedText } = await import('../context-ops/shared-text.js');
  const { CONTEXT_HELPER_NAMES } = await import('../context-ops/context-scanner.js');
  const { resolveLimits } = await import('../sandbox-options.js');
  return { warmUp, QuickJsEngine, toSharedText, CONTEXT_HELPER_NAMES, resolveLimits };
}

describe('warming the block path', () => {
  beforeEach(() => {
    vi.restoreAllMocks();
  });

  it('runs the warm-up block once per thread on the engine it starts, then frees that engine', async () => {
    const { warmUp } = await fresh();
    const ran: string[] = [];
    let disposed = 0;
    const start = vi.fn(async () => ({
      execute: async (code: string) => {
        ran.push(code);
        return { error: null };
      },
      dispose: () => {
        disposed += 1;
      },
    }));
    expect(warmUp.blockPathWarm()).toBe(false);
    await warmUp.warmBlockPath(start);
    await warmUp.warmBlockPath(start);
    expect(start).toHaveBeenCalledTimes(1);
    expect(ran).toEqual([warmUp.WARM_UP_BLOCK]);
    expect(disposed).toBe(1);
    expect(warmUp.blockPathWarm()).toBe(true);
  });

  it('never rejects: an engine that fails to start or to run leaves the code cold, and is freed', async () => {
    const { warmUp } = await fresh();
    await expect(
      warmUp.warmBlockPath(async () => {
        throw new Error('no engine');
      }),
    ).resolves.toBeUndefined();
    const { warmUp: again } = await fresh();
    let disposed = 0;
    await expect(
      again.warmBlockPath(async () => ({
        execute: async () => {
          throw new Error('broken');
        },
        dispose: () => {
          disposed += 1;
        },
      })),
    ).resolves.toBeUndefined();
    expect(disposed).toBe(1);
  });

  it('warms a real engine with a long payload while its scan side starts, and the sandbox sees nothing of it', async () => {
    const { warmUp, QuickJsEngine, toSharedText, CONTEXT_HELPER_NAMES, resolveLimits } =
      await fresh();
    const shared = toSharedText('needle and hay\n'.repeat(10), 1);
    if (shared === undefined) throw new Error('expected shared text');
    const engine = await QuickJsEngine.create(
      {
        contexts: [shared],
        meta: {},
        functionNames: ['llm_query'],
        helperNames: [...CONTEXT_HELPER_NAMES],
        limits: resolveLimits({ memoryBytes: 64 * 1024 * 1024 }, 'inline'),
      },
      async () => '"from the sandbox"',
    );
    const execute = vi.spyOn(QuickJsEngine.prototype, 'execute');
    try {
      expect(warmUp.blockPathWarm()).toBe(false);
      await engine.helpersReady();
      expect(warmUp.blockPathWarm()).toBe(true);
      // The warm-up block ran the whole way on its own engine: declaration, host call, output.
      expect(execute).toHaveBeenCalledTimes(1);
      expect(execute.mock.calls[0]?.[0]).toBe(warmUp.WARM_UP_BLOCK);
      expect(execute.mock.instances[0]).not.toBe(engine);
      const warmed = await execute.mock.results[0]?.value;
      expect(warmed).toMatchObject({ error: null, stdout: "ok\n'ok'\n" });
      execute.mockRestore();
      const seen = await engine.execute(
        `[typeof ${warmUp.WARM_UP_FUNCTION}, typeof answer, await count("needle"), await llm_query("q")].join(" ")`,
      );
      expect(seen.error).toBeNull();
      expect(seen.stdout).toBe("'undefined undefined 10 from the sandbox'\n");
      expect(engine.listVariables()).toEqual([]);
    } finally {
      engine.dispose();
    }
  });

  it('leaves a sandbox without a long payload alone (its worker is reused, its code warm)', async () => {
    const { warmUp, QuickJsEngine, CONTEXT_HELPER_NAMES, resolveLimits } = await fresh();
    const engine = await QuickJsEngine.create(
      {
        contexts: ['short'],
        meta: {},
        functionNames: [],
        helperNames: [...CONTEXT_HELPER_NAMES],
        limits: resolveLimits({}, 'inline'),
      },
      async () => undefined,
    );
    await engine.helpersReady();
    expect(warmUp.blockPathWarm()).toBe(false);
    engine.dispose();
  });
});
