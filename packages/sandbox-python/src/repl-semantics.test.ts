import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { run, withSandbox } from './sandbox-cases.test-helpers.js';

describe('Python REPL semantics', () => {
  it('keeps variables, functions and imports across blocks and prints the last expression', async () => {
    await withSandbox({}, async (sandbox) => {
      await run(sandbox, 'import math\nitems = [1, 2, 3]\ndef double(x):\n    return 2 * x');
      expect(await run(sandbox, 'items = [double(i) for i in items]\nitems')).toBe('[2, 4, 6]\n');
      expect(await run(sandbox, 'math.floor(2.5)')).toBe('2\n');
      expect(await run(sandbox, 'None')).toBe('');
      expect(await run(sandbox, "'text'")).toBe("'text'\n");
    });
  });

  it('reports an exception with its type, message, block line and a traceback of the block', async () => {
    await withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute('x = 1\ny = {}\ny["missing"]');
      expect(result.error).toEqual({ name: 'KeyError', message: "'missing'", line: 3 });
      expect(result.stderr).toContain('File "<block>", line 3, in <module>');
      expect(result.stderr).toContain("KeyError: 'missing'");
      expect(result.stderr).not.toContain('rlm-');
      expect(await run(sandbox, 'x + len(y)')).toBe('1\n');
    });
  });

  it('names the line of a syntax error and runs nothing of that block', async () => {
    await withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute('ran = True\nif True\n    pass');
      expect(result.error).toMatchObject({ name: 'SyntaxError', line: 2 });
      expect(result.stderr).toContain('SyntaxError');
      expect(await sandbox.getVariable('ran')).toBeUndefined();
    });
  });

  it('binds context and context_N, and histories and payloads set by the host', async () => {
    await withSandbox({ contexts: ['first', { items: [1, 2] }] }, async (sandbox) => {
      expect(await run(sandbox, 'print(context, context_0, context_1["items"])')).toBe(
        'first first [1, 2]\n',
      );
      await sandbox.setVariable('history_0', [{ role: 'user', content: 'hi' }]);
      await sandbox.setVariable('context_2', 'third');
      expect(await run(sandbox, 'print(history_0[0]["content"], context_2)')).toBe('hi third\n');
    });
  });

  it('restores reserved names a block rebinds or deletes, and hides them from the variables', async () => {
    await withSandbox({ context: 'kept' }, async (sandbox) => {
      const result = await sandbox.execute(
        'context = "changed"\nprint = None\ndel FINAL\nmine = 1',
      );
      expect(result.error).toBeNull();
      expect(result.locals).toEqual({ mine: 'number' });
      expect(await run(sandbox, 'print(context)\nFINAL("x")\nNone')).toBe('kept\n');
    });
  });

  it('lists user variables with protocol type names and copies values out as JSON', async () => {
    await withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute(
        'import re\ns = "abc"; n = 2.5; b = True; nothing = None; l = [1, (2, 3)]; d = {1: {2}}\nclass K: pass\ndef f(): pass\nk = K()\nloop = []; loop.append(loop)',
      );
      expect(result.locals).toEqual({
        s: 'string',
        n: 'number',
        b: 'boolean',
        nothing: 'null',
        l: 'array',
        d: 'object',
        K: 'class',
        f: 'function',
        k: 'K',
        loop: 'array',
      });
      expect(await sandbox.getVariable('l')).toEqual([1, [2, 3]]);
      expect(await sandbox.getVariable('d')).toEqual({ '1': [2] });
      expect(await sandbox.getVariable('loop')).toEqual(['[Circular]']);
      expect(await sandbox.getVariable('re')).toMatch(/^<module object at/);
      expect(await sandbox.getVariable('missing')).toBeUndefined();
      const listed = await sandbox.listVariables();
      expect(listed.find((v) => v.name === 's')).toEqual({ name: 's', type: 'string', size: 3 });
    });
  });

  it('sets variables from the host and refuses scaffold names and non-identifiers', async () => {
    await withSandbox({}, async (sandbox) => {
      await sandbox.setVariable('data', { a: [1, null] });
      expect(await run(sandbox, 'data["a"]')).toBe('[1, None]\n');
      for (const name of ['FINAL', 'llm_query', 'not valid', 'class', '$x']) {
        await expect(sandbox.setVariable(name, 1)).rejects.toSatisfy((error) =>
          RlmError.is(error, 'sandbox.invalid_value'),
        );
      }
    });
  });

  it('exposes the run metadata as a read-only __rlm mapping', async () => {
    await withSandbox({ meta: { depth: 1, budget: { tokens: 10 } } }, async (sandbox) => {
      expect(await run(sandbox, '__rlm["depth"], __rlm["budget"]["tokens"]')).toBe('(1, 10)\n');
      const result = await sandbox.execute('__rlm["depth"] = 5');
      expect(result.error?.name).toBe('TypeError');
    });
  });

  it('runs blocks issued at the same time one after another, in call order', async () => {
    await withSandbox({}, async (sandbox) => {
      const [first, second] = await Promise.all([
        sandbox.execute('order = ["first"]'),
        sandbox.execute('order.append("second"); order'),
      ]);
      expect(first.error).toBeNull();
      expect(second.stdout).toBe("['first', 'second']\n");
    });
  });

  it('gives input() an end of file instead of reading the host', async () => {
    await withSandbox({}, async (sandbox) => {
      const result = await sandbox.execute('input()');
      expect(result.error?.name).toBe('EOFError');
    });
  });

  it('sets the variables sent with a block before it runs, and runs nothing when one is refused', async () => {
    await withSandbox({}, async (sandbox) => {
      const first = await sandbox.execute('print(meta["turn"])', {
        variables: { meta: { turn: 1 } },
      });
      expect(first.stdout).toBe('1\n');
      const second = await sandbox.execute('print(meta["turn"])', {
        variables: { meta: { turn: 2 } },
      });
      expect(second.stdout).toBe('2\n');
      await expect(
        sandbox.execute('ran = True', { variables: { 'not a name': 1 } }),
      ).rejects.toBeInstanceOf(RlmError);
      expect(await sandbox.getVariable('ran')).toBeUndefined();
    });
  });
});
