import { describe, expect, it } from 'vitest';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

describe.each(ISOLATIONS)('sandbox REPL semantics (%s)', (isolation) => {
  it('keeps top-level declarations across blocks and lets them be re-declared', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.execute(
        'const a = [1, 2, 3];\nlet b = 2;\nclass K { v() { return 7; } }\nfunction f() { return 1; }',
      );
      const again = await sandbox.execute(
        'const a = a.map((x) => x * b);\nlet b = 10;\nclass K {}\nprint(a, b, typeof K, f())',
      );
      expect(again.error).toBeNull();
      expect(again.stdout).toBe('[ 2, 4, 6 ] 10 function 1\n');
      expect(again.locals).toMatchObject({ a: 'array', b: 'number', K: 'class', f: 'function' });
    });
  });

  it('runs blocks issued at the same time one after another, in call order', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const [first, second] = await Promise.all([
        sandbox.execute('await null; var order = ["first"]'),
        sandbox.execute('order.push("second"); order'),
      ]);
      expect(first.error).toBeNull();
      expect(second.stdout).toBe("[ 'first', 'second' ]\n");
    });
  });

  it('supports top-level await and prints the completion value like a REPL', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('const v = await Promise.resolve(20);\nv + 1');
      expect(result.stdout).toBe('21\n');
      expect((await sandbox.execute('undefined')).stdout).toBe('');
      expect((await sandbox.execute("'text'")).stdout).toBe("'text'\n");
    });
  });

  it('prints objects readably with depth and length caps', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        'const o = { a: 1, "b-c": [1, 2], m: new Map([["k", 1]]), s: new Set([1]) }; o.self = o;\nprint(o);\nprint({ d: { e: { f: { g: { h: { i: 1 } } } } } });\nprint(Array.from({ length: 150 }, (_, i) => i).length, [..."x".repeat(3)])',
      );
      expect(result.stdout).toContain("'b-c': [ 1, 2 ]");
      expect(result.stdout).toContain("Map(1) { 'k' => 1 }");
      expect(result.stdout).toContain('self: [Circular]');
      expect(result.stdout).toContain('[Object]');
      expect(result.stdout).not.toContain('[object Object]');
      const long = await sandbox.execute('Array.from({ length: 150 }, (_, i) => i)');
      expect(long.stdout).toContain('... 50 more items');
    });
  });

  it('routes console methods to stdout and stderr, print aliasing console.log', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute(
        "console.log('l'); console.info('i'); console.debug('d'); print('p');\nconsole.warn('w'); console.error('e');",
      );
      expect(result.stdout).toBe('l\ni\nd\np\n');
      expect(result.stderr).toBe('w\ne\n');
    });
  });

  it('cuts output beyond maxOutputChars with a marker saying how much', async () => {
    await withSandbox({ isolation, limits: { maxOutputChars: 100 } }, async (sandbox) => {
      const result = await sandbox.execute("for (let i = 0; i < 50; i++) print('0123456789')");
      expect(result.stdout.startsWith('0123456789\n'.repeat(9))).toBe(true);
      expect(result.stdout).toContain('… + [450 chars...]');
    });
  });

  it('reports a throwing block with name, message and line, keeping earlier declarations', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('const kept = 1;\n\nnull.prop;\nconst after = 2;');
      expect(result.error).toMatchObject({ name: 'TypeError', line: 3 });
      expect(result.stderr).toMatch(/^TypeError: .+\n {4}at line 3 of this block\n$/);
      expect(await sandbox.getVariable('kept')).toBe(1);
    });
  });

  it('names the line of a syntax error', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      const result = await sandbox.execute('const ok = 1;\nconst = broken;');
      expect(result.error).toMatchObject({ name: 'SyntaxError', line: 2 });
      expect(await sandbox.getVariable('ok')).toBeUndefined();
    });
  });

  it('restores reserved names the block rebinds', async () => {
    await withSandbox(
      {
        isolation,
        context: 'the payload',
        functions: { llm_query: { description: 'q', call: async () => 'r' } },
      },
      async (sandbox) => {
        await sandbox.execute('context = 1; var llm_query = null; FINAL = 2; console = {};');
        const result = await sandbox.execute('print(context, typeof llm_query, typeof FINAL)');
        expect(result.stdout).toBe('the payload function function\n');
        expect(Object.keys(result.locals)).toEqual([]);
      },
    );
  });

  it('binds several payloads to context_N with context aliasing context_0', async () => {
    await withSandbox({ isolation, contexts: ['first', { k: [1] }, [1, 2]] }, async (sandbox) => {
      const result = await sandbox.execute(
        'print(context === context_0, context_1.k[0], context_2.length)',
      );
      expect(result.stdout).toBe('true 1 2\n');
    });
  });

  it('exposes meta as a deeply frozen __rlm', async () => {
    await withSandbox({ isolation, meta: { depth: 1, budget: { tokens: 5 } } }, async (sandbox) => {
      const result = await sandbox.execute(
        '__rlm.depth = 9; __rlm.budget.tokens = 9;\n[__rlm.depth, __rlm.budget.tokens, Object.isFrozen(__rlm.budget)]',
      );
      expect(result.stdout).toBe('[ 1, 5, true ]\n');
    });
  });

  it('lets the host refresh __rlm, which stays frozen', async () => {
    await withSandbox({ isolation, meta: { iteration: 0 } }, async (sandbox) => {
      await sandbox.setVariable('__rlm', { iteration: 3, budget: { tokens: 9 } });
      const result = await sandbox.execute(
        '__rlm.budget.tokens = 0;\n[__rlm.iteration, __rlm.budget.tokens]',
      );
      expect(result.stdout).toBe('[ 3, 9 ]\n');
    });
  });

  it('sets variables given with a block before it runs, in the same call', async () => {
    await withSandbox({ isolation, meta: { iteration: 0 } }, async (sandbox) => {
      const result = await sandbox.execute('[__rlm.iteration, Object.isFrozen(__rlm), extra]', {
        variables: { __rlm: { iteration: 4 }, extra: 'given' },
      });
      expect(result.stdout).toBe("[ 4, true, 'given' ]\n");
      expect(await sandbox.getVariable('extra')).toBe('given');
    });
  });

  it('refuses a block whose variables cannot be set, without running it', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await expect(
        sandbox.execute('var ran = true', { variables: { FINAL: 1 } }),
      ).rejects.toMatchObject({ code: 'sandbox.invalid_value' });
      expect(await sandbox.getVariable('ran')).toBeUndefined();
    });
  });

  it('copies variables in and out as JSON and lists them with type and size', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await sandbox.setVariable('history', [{ role: 'user', content: 'hi' }]);
      await sandbox.setVariable('data', { n: 1 });
      await sandbox.execute(
        'const cyc = { name: "c" }; cyc.me = cyc; const fn = () => 1; const text = "abc";',
      );
      expect(await sandbox.getVariable('cyc')).toEqual({ name: 'c', me: '[Circular]' });
      expect(await sandbox.getVariable('history')).toEqual([{ role: 'user', content: 'hi' }]);
      expect(await sandbox.getVariable('missing')).toBeUndefined();
      const listed = await sandbox.listVariables();
      expect(listed).toContainEqual({ name: 'text', type: 'string', size: 3 });
      expect(listed).toContainEqual({ name: 'fn', type: 'function', size: expect.any(Number) });
      expect(listed.map((v) => v.name)).not.toContain('history');
    });
  });

  it('rejects setVariable for scaffold functions and non-identifiers', async () => {
    await withSandbox({ isolation }, async (sandbox) => {
      await expect(sandbox.setVariable('FINAL', 1)).rejects.toMatchObject({
        code: 'sandbox.invalid_value',
      });
      await expect(sandbox.setVariable('not a name', 1)).rejects.toMatchObject({
        code: 'sandbox.invalid_value',
      });
    });
  });

  it('carries NUL, lone surrogates and astral characters across the boundary intact', async () => {
    const tricky = ['a\u0000b', 'lone \ud800 surrogate', 'ünï 😀 e\u0301', ''];
    await withSandbox({ isolation, contexts: tricky }, async (sandbox) => {
      const lengths = await sandbox.execute(
        '[context_0.length, context_1.length, context_2.length, context_3.length]',
      );
      expect(lengths.stdout).toBe(`[ ${tricky.map((t) => t.length).join(', ')} ]\n`);
      for (const [index, text] of tricky.entries()) {
        expect(await sandbox.getVariable(`context_${index}`)).toBe(text);
      }
    });
  });

  it('injects a large context and slices it in a block', async () => {
    const line = 'The quick brown fox jumps over the lazy dog.\n';
    const big = line.repeat(Math.ceil(20_000_000 / line.length));
    await withSandbox(
      { isolation, context: big, limits: { memoryBytes: 256 * 1024 * 1024 } },
      async (sandbox) => {
        const result = await sandbox.execute('[context.length, context.slice(45, 54)]');
        expect(result.stdout).toBe(`[ ${big.length}, 'The quick' ]\n`);
      },
    );
  });
});
