import { describe, expect, it } from 'vitest';
import { delayedFunction, ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe.each(ISOLATIONS)('host functions (%s)', (isolation) => {
  it('runs 20 host calls made together at the same time', async () => {
    let running = 0;
    let peak = 0;
    // Each call waits until all 20 have started (or 10 s pass): one at a time, they could not.
    const allStarted = deferred();
    const giveUp = setTimeout(allStarted.resolve, 10_000);
    const llm_query = {
      description: 'sub-model',
      call: async (args: unknown[]) => {
        running += 1;
        peak = Math.max(peak, running);
        if (running === 20) allStarted.resolve();
        await allStarted.promise;
        running -= 1;
        return `re:${String(args[0])}`;
      },
    };
    await withSandbox({ isolation, functions: { llm_query } }, async (sandbox) => {
      const result = await sandbox.execute(
        'const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => llm_query("p" + i)));\nanswers.length',
      );
      expect(result.error).toBeNull();
      expect(result.stdout).toBe('20\n');
      // Concurrency as a property, not a timing: how fast this is belongs in `pnpm bench`.
      expect(peak).toBe(20);
      clearTimeout(giveUp);
      expect(await sandbox.getVariable('answers')).toEqual(
        Array.from({ length: 20 }, (_, i) => `re:p${i}`),
      );
    });
  });

  it('supports batched fan-out written with host functions', async () => {
    const llm_query_batched = {
      description: 'batch',
      call: async (args: unknown[]) => (args[0] as string[]).map((p) => p.toUpperCase()),
    };
    await withSandbox({ isolation, functions: { llm_query_batched } }, async (sandbox) => {
      const result = await sandbox.execute(
        'const out = await llm_query_batched(["a", "b"]);\nout.join("|")',
      );
      expect(result.stdout).toBe("'A|B'\n");
    });
  });

  it('passes JSON copies of arguments and turns host failures into guest rejections', async () => {
    const seen: unknown[] = [];
    const tool = {
      description: 'tool',
      call: async (args: unknown[]) => {
        seen.push(args);
        if (args[0] === 'fail') throw new Error('tool broke');
        return { ok: true };
      },
    };
    await withSandbox({ isolation, functions: { tool } }, async (sandbox) => {
      const result = await sandbox.execute(
        'const r = await tool({ d: new Date(0), u: undefined }, undefined);\nlet msg; try { await tool("fail") } catch (e) { msg = e.message }\n[r.ok, msg]',
      );
      expect(result.stdout).toBe("[ true, 'tool broke' ]\n");
      expect(seen[0]).toEqual([{ d: '1970-01-01T00:00:00.000Z' }]);
    });
  });

  it('aborts calls left running when the block ends and drops their results', async () => {
    const slow = delayedFunction(300);
    await withSandbox({ isolation, functions: { slow } }, async (sandbox) => {
      const first = await sandbox.execute(
        'var late = "unset"; slow("x").then((v) => { late = v; }); 1',
      );
      expect(first.error).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const after = await sandbox.execute('late');
      expect(after.stdout).toBe("'unset'\n");
      expect(slow.aborted).toBe(1);
    });
  });

  it('counts the calls a block left pending, by function, and only those', async () => {
    const slow = delayedFunction(60_000);
    const quick = delayedFunction(0);
    await withSandbox({ isolation, functions: { slow, quick } }, async (sandbox) => {
      const result = await sandbox.execute('slow("a"); slow("b"); quick("c"); await quick("d"); 1');
      expect(result.error).toBeNull();
      expect(result.unawaitedCalls).toEqual({ slow: 2 });
      expect(slow.aborted).toBe(2);
      const next = await sandbox.execute('await quick("e")');
      expect(next.unawaitedCalls).toEqual({});
    });
  });
});
