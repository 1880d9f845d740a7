import { describe, expect, it } from 'vitest';
import { CONTEXT_HELPERS_PROMPT } from './context-ops/context-helpers-prompt.js';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

const TEXT = 'first line\r\nsecond needle\nthird\nfourth needle\n';

describe.each(ISOLATIONS)('context helpers (%s)', (isolation) => {
  it('greps context with line numbers and surrounding lines', async () => {
    await withSandbox({ isolation, context: TEXT }, async (sandbox) => {
      const result = await sandbox.execute(
        'const hits = await grep(/needle/, { context: 1 });\nhits',
      );
      expect(result.error).toBeNull();
      expect(await sandbox.getVariable('hits')).toEqual({
        matches: [
          { line: 2, text: 'second needle', before: ['first line'], after: ['third'] },
          { line: 4, text: 'fourth needle', before: ['third'], after: [''] },
        ],
        total: 2,
      });
    });
  });

  it('finds, counts, slices lines and chunks on context_N via the target option', async () => {
    await withSandbox({ isolation, contexts: ['unused', TEXT] }, async (sandbox) => {
      await sandbox.execute(
        'const found = await find_all("ne(e)dle", { target: 1 });\nconst n = await count(/e/g, { target: "context_1" });\nconst some = await lines(2, 3, { target: 1 });\nconst parts = await chunk(20, { target: 1, overlap: 5 });',
      );
      expect(await sandbox.getVariable('found')).toEqual({
        matches: [
          { match: 'needle', index: 19, groups: ['e'] },
          { match: 'needle', index: 39, groups: ['e'] },
        ],
        total: 2,
      });
      expect(await sandbox.getVariable('n')).toBe([...TEXT.matchAll(/e/g)].length);
      expect(await sandbox.getVariable('some')).toBe('second needle\nthird');
      expect(await sandbox.getVariable('parts')).toHaveLength(3);
    });
  });

  it('reports an invalid pattern with the SyntaxError JavaScript gives', async () => {
    const source = 'a(b';
    let expected = '';
    try {
      new RegExp(source);
    } catch (error) {
      expected = (error as Error).message;
    }
    await withSandbox({ isolation, context: TEXT }, async (sandbox) => {
      const result = await sandbox.execute(`await grep(${JSON.stringify(source)})`);
      expect(result.error).toMatchObject({ name: 'SyntaxError', message: expected });
    });
  });

  it('stops a catastrophic pattern at its deadline while the sandbox keeps working', async () => {
    const context = `${'a'.repeat(40)}!`;
    await withSandbox({ isolation, context, limits: { scanTimeoutMs: 500 } }, async (sandbox) => {
      const started = Date.now();
      const result = await sandbox.execute(
        'let why; try { await count(/^(a+)+$/) } catch (e) { why = e.message }\nwhy',
      );
      expect(result.stdout).toContain('500 ms');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await sandbox.execute('await count(/a/g)')).stdout).toBe('40\n');
    });
  });

  it('leaves a rebound helper name to the user', async () => {
    await withSandbox({ isolation, context: TEXT }, async (sandbox) => {
      await sandbox.execute('const lines = context.split("\\n");');
      const result = await sandbox.execute('lines.length');
      expect(result.stdout).toBe('5\n');
      expect(result.locals).toEqual({ lines: 'array' });
    });
  });

  it('scans a payload added later with setVariable', async () => {
    await withSandbox({ isolation, context: 'a' }, async (sandbox) => {
      await sandbox.setVariable('context_1', 'zz needle zz');
      expect((await sandbox.execute('await count("needle", { target: 1 })')).stdout).toBe('1\n');
    });
  });

  it('scans a non-string payload as its 2-space JSON text', async () => {
    const payload = [{ role: 'user', content: 'find the needle' }];
    await withSandbox({ isolation, context: payload }, async (sandbox) => {
      await sandbox.execute('const hit = (await grep("needle")).matches[0];');
      expect(await sandbox.getVariable('hit')).toEqual({
        line: 4,
        text: '    "content": "find the needle"',
      });
    });
  });

  it('refuses a missing payload with a clear error', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('await grep("x")');
      expect(result.error?.message).toContain('there is no context_0');
    });
  });

  it('defines no helper when contextHelpers is false, leaving the names free', async () => {
    await withSandbox({ isolation, context: TEXT, contextHelpers: false }, async (sandbox) => {
      const result = await sandbox.execute(
        'const kinds = [typeof grep, typeof find_all, typeof count, typeof lines, typeof chunk];\nkinds',
      );
      expect(result.error).toBeNull();
      expect(await sandbox.getVariable('kinds')).toEqual(Array(5).fill('undefined'));
      const own = await sandbox.execute(
        'function grep(text) { return text.length; }\ngrep(context)',
      );
      expect(own.error).toBeNull();
    });
  });

  it('runs the example the prompt documents', async () => {
    const example = /Example: `(.+)`$/.exec(CONTEXT_HELPERS_PROMPT)?.[1] ?? '';
    expect(example).not.toBe('');
    await withSandbox({ isolation, context: 'ok\nERROR code 17 here\nok' }, async (sandbox) => {
      const result = await sandbox.execute(example);
      expect(result.error).toBeNull();
      expect(result.stdout).toContain("text: 'ERROR code 17 here'");
    });
  });

  it('accepts the calls the system prompt of @rlm/prompts shows', async () => {
    const log = 'ok\nRefund issued\nchargeback filed\nok\n'.repeat(50);
    await withSandbox({ isolation, context: log }, async (sandbox) => {
      const scan = await sandbox.execute(
        "const hits = await grep('refund|chargeback', { flags: 'i', context: 2, max: 20 });\nprint(hits.total);\nprint(await count('refund', { target: 'context' }));",
      );
      expect(scan.error).toBeNull();
      expect(scan.stdout).toBe('100\n0\n');
      const ranges = await sandbox.execute(
        'const ranges = await chunk(1_000, { overlap: 50 });\nranges.every(({ start, end }) => end - start <= 1_000)',
      );
      expect(ranges.stdout).toBe('true\n');
    });
  });
});
