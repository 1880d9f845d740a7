import type { JsonValue } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

const MB = 2 ** 20;
/** Room for 100 MB strings (and the copies building them makes). */
const BIG_MEMORY = 512 * MB;
const MAX_OUTPUT = 1_000;

/** Everything the block sends back, as characters: what a host would store or show. */
function resultSize(result: {
  stdout: string;
  stderr: string;
  error: unknown;
  finalAnswer: unknown;
}) {
  return JSON.stringify(result).length;
}

describe.each(ISOLATIONS)('every byte that leaves the sandbox is capped (%s)', (isolation) => {
  const limits = { memoryBytes: BIG_MEMORY, maxOutputChars: MAX_OUTPUT };

  it('cuts a 100 MB error message to maxOutputChars, with a marker', async () => {
    await withSandbox({ isolation, limits }, async (sandbox) => {
      const result = await sandbox.execute("throw new Error('x'.repeat(100 * 2 ** 20))");
      expect(result.error?.name).toBe('Error');
      expect(result.error?.message.startsWith('x'.repeat(MAX_OUTPUT))).toBe(true);
      expect(result.error?.message).toContain(`[${100 * MB - MAX_OUTPUT} chars...]`);
      expect(resultSize(result)).toBeLessThan(5 * MAX_OUTPUT);
      expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
    });
  });

  it('cuts a 40 MB error name to 200 characters', async () => {
    await withSandbox({ isolation, limits }, async (sandbox) => {
      const result = await sandbox.execute("throw { name: 'N'.repeat(40 * 2 ** 20) }");
      expect(result.error?.name.startsWith('N'.repeat(200))).toBe(true);
      expect(result.error?.name).toContain(`[${40 * MB - 200} chars...]`);
      expect(resultSize(result)).toBeLessThan(5 * MAX_OUTPUT);
    });
  });

  it('cuts a thrown value that is not an error, and a huge stack', async () => {
    await withSandbox({ isolation, limits }, async (sandbox) => {
      const thrown = await sandbox.execute("throw 'z'.repeat(10 * 2 ** 20)");
      expect(thrown.error?.name).toBe('Uncaught');
      expect(resultSize(thrown)).toBeLessThan(5 * MAX_OUTPUT);
      const stacked = await sandbox.execute(
        "const e = new Error('s'); Object.defineProperty(e, 'stack', { value: 'at '.repeat(2 ** 22) }); throw e",
      );
      expect(resultSize(stacked)).toBeLessThan(5 * MAX_OUTPUT);
    });
  });

  it('refuses a 100 MB FINAL with a clear error and takes a shorter one afterwards', async () => {
    await withSandbox({ isolation, limits }, async (sandbox) => {
      const result = await sandbox.execute("FINAL('f'.repeat(100 * 2 ** 20))");
      expect(result.finalAnswer).toBeNull();
      expect(result.error).toMatchObject({ name: 'RangeError', code: 'sandbox.too_large' });
      expect(result.error?.message).toContain('maxAnswerChars');
      expect(resultSize(result)).toBeLessThan(5 * MAX_OUTPUT);
      expect((await sandbox.execute("FINAL('short')")).finalAnswer).toBe('short');
    });
  });

  it('applies maxAnswerChars to FINAL_VAR and to answers given as objects', async () => {
    await withSandbox({ isolation, limits: { maxAnswerChars: 100 } }, async (sandbox) => {
      await sandbox.execute(
        "var long = 'a'.repeat(101); var rows = Array.from({ length: 50 }, (_, i) => ({ i }))",
      );
      for (const code of ['FINAL_VAR("long")', 'FINAL(rows)']) {
        const result = await sandbox.execute(code);
        expect(result.finalAnswer).toBeNull();
        expect(result.error?.code).toBe('sandbox.too_large');
      }
      expect((await sandbox.execute('FINAL(long.slice(0, 100))')).finalAnswer).toBe(
        'a'.repeat(100),
      );
    });
  });

  it('refuses chunk(1) on an 8 MB context without building the list, and honours max', async () => {
    const context = 'abcdefg\n'.repeat(MB);
    await withSandbox(
      { isolation, context, limits: { maxOutputChars: MAX_OUTPUT } },
      async (sandbox) => {
        const result = await sandbox.execute('await chunk(1)');
        expect(result.error).toMatchObject({ name: 'RangeError', code: 'sandbox.too_large' });
        expect(resultSize(result)).toBeLessThan(5 * MAX_OUTPUT);
        const counted = await sandbox.execute('(await chunk(4_200, { max: 2_000 })).length');
        expect(counted.stdout).toBe('1998\n');
        expect((await sandbox.execute('(await chunk(2 ** 20)).length')).stdout).toBe('8\n');
      },
    );
  });

  it('rejects the guest promise for a host result too large or not serializable', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    const results: Record<string, unknown> = {
      huge: 'h'.repeat(3 * MB),
      cyclic,
      bigint: 10n,
      many: Array.from({ length: 200_000 }, (_, index) => ({ index })),
    };
    const fetch_value = {
      description: 'returns what it is asked for',
      call: async (args: JsonValue[]) => results[String(args[0])] as JsonValue,
    };
    await withSandbox(
      { isolation, functions: { fetch_value }, limits: { maxHostCallChars: MB } },
      async (sandbox) => {
        for (const [name, code] of [
          ['huge', 'sandbox.too_large'],
          ['cyclic', 'sandbox.invalid_value'],
          ['bigint', 'sandbox.invalid_value'],
          ['many', 'sandbox.too_large'],
        ]) {
          const result = await sandbox.execute(`await fetch_value(${JSON.stringify(name)})`);
          expect(result.error?.code, name).toBe(code);
          expect(resultSize(result)).toBeLessThan(10 * MAX_OUTPUT + 10_000);
        }
        expect((await sandbox.execute('1 + 1')).stdout).toBe('2\n');
      },
    );
  });

  it('refuses arguments over maxHostCallChars before they reach the host', async () => {
    let calls = 0;
    const llm_query = {
      description: 'counts calls',
      call: async () => {
        calls += 1;
        return 'ok';
      },
    };
    await withSandbox(
      { isolation, functions: { llm_query }, limits: { maxHostCallChars: MB } },
      async (sandbox) => {
        const result = await sandbox.execute("await llm_query('p'.repeat(2 * 2 ** 20))");
        expect(result.error).toMatchObject({ name: 'RangeError', code: 'sandbox.too_large' });
        expect(calls).toBe(0);
        expect((await sandbox.execute("await llm_query('small')")).stdout).toBe("'ok'\n");
      },
    );
  });

  it('cuts a host error message before it reaches the guest', async () => {
    const broken = {
      description: 'fails loudly',
      call: async () => {
        throw new Error('e'.repeat(10 * MB));
      },
    };
    await withSandbox({ isolation, functions: { broken }, limits }, async (sandbox) => {
      const result = await sandbox.execute(
        'let size; try { await broken() } catch (e) { size = e.message.length }\nsize',
      );
      expect(Number(result.stdout)).toBeLessThan(2 * MAX_OUTPUT);
    });
  });

  it('gives getVariable a maxChars that refuses larger values', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        "var text = 't'.repeat(5_000); var list = Array.from({ length: 1_000 }, (_, i) => i)",
      );
      await expect(sandbox.getVariable('text', { maxChars: 4_999 })).rejects.toMatchObject({
        code: 'sandbox.too_large',
        details: { size: 5_000, limit: 4_999 },
      });
      await expect(sandbox.getVariable('list', { maxChars: 100 })).rejects.toMatchObject({
        code: 'sandbox.too_large',
      });
      expect(await sandbox.getVariable('text', { maxChars: 5_000 })).toBe('t'.repeat(5_000));
    });
  });
});
