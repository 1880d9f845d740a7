import { describe, expect, it } from 'vitest';
import { run, withSandbox } from './sandbox-cases.test-helpers.js';

const TEXT = ['alpha 1', 'beta 22', 'gamma 333', 'delta 4444'].join('\n');

describe('context helpers from Python', () => {
  it('greps, finds, counts, reads lines and chunks the context on the host', async () => {
    await withSandbox({ context: TEXT }, async (sandbox) => {
      expect(await run(sandbox, 'grep(r"\\d{3}", context=1)')).toBe(
        "{'matches': [{'line': 3, 'text': 'gamma 333', 'before': ['beta 22'], 'after': ['delta 4444']}, {'line': 4, 'text': 'delta 4444', 'before': ['gamma 333'], 'after': []}], 'total': 2}\n",
      );
      expect(await run(sandbox, 'find_all(r"(?P<word>[a-z]+) (\\d+)", max=1)["matches"]')).toBe(
        "[{'match': 'alpha 1', 'index': 0, 'groups': ['alpha', '1'], 'named': {'word': 'alpha'}}]\n",
      );
      expect(
        await run(sandbox, 'import re\ncount("A", flags="i"), count(re.compile("^[a-z]", re.M))'),
      ).toContain('(6, 4)');
      expect(await run(sandbox, 'lines(2, 3)')).toBe("'beta 22\\ngamma 333'\n");
      expect(await run(sandbox, '[(c["start"], c["end"]) for c in chunk(20, overlap=5)]')).toBe(
        '[(0, 20), (15, 35), (30, 36)]\n',
      );
    });
  });

  it('gives offsets in Python characters, so slicing context reads the match', async () => {
    const text = '🙂🙂 start 🙂 needle end';
    await withSandbox({ context: text }, async (sandbox) => {
      const out = await run(
        sandbox,
        'm = find_all("needle")["matches"][0]\nc = chunk(3)[1]\nprint(context[m["index"]:m["index"] + 6], repr(context[c["start"]:c["end"]]))',
      );
      expect(out).toBe("needle 'sta'\n");
    });
  });

  it('reads another payload with target and raises Python errors for bad calls', async () => {
    await withSandbox({ contexts: ['first', 'second payload'] }, async (sandbox) => {
      expect(await run(sandbox, 'count("o", target=1)')).toBe('2\n');
      const bad = await sandbox.execute('grep("(")');
      expect(bad.error?.name).toBe('ValueError');
      expect(bad.error?.message).toContain('Invalid regular expression');
      const missing = await sandbox.execute('count("x", target=5)');
      expect(missing.error?.name).toBe('TypeError');
      expect(missing.error?.message).toContain('no context_5');
    });
  });

  it('stops a catastrophic pattern at the scan deadline and keeps the REPL usable', async () => {
    await withSandbox(
      { context: `${'a'.repeat(40)}b`, limits: { scanTimeoutMs: 300 } },
      async (sandbox) => {
        const result = await sandbox.execute('count(r"^(a+)+$")');
        expect(result.error).toMatchObject({ name: 'HostError' });
        expect(result.error?.message).toContain('the scan took longer than 300 ms');
        expect(await run(sandbox, 'count("a")')).toBe('40\n');
      },
    );
  });

  it('refuses more chunks than max and says how to ask for them', async () => {
    await withSandbox({ context: 'x'.repeat(5_000) }, async (sandbox) => {
      const result = await sandbox.execute('chunk(1)');
      expect(result.error?.message).toContain('5000 chunks of 1 characters exceed max (1000)');
      expect(await run(sandbox, 'len(chunk(1, max=5000))')).toBe('5000\n');
    });
  });

  it('leaves the helpers out, and their names free, when contextHelpers is false', async () => {
    await withSandbox({ context: TEXT, contextHelpers: false }, async (sandbox) => {
      const result = await sandbox.execute('grep("a")');
      expect(result.error?.name).toBe('NameError');
      expect(await run(sandbox, 'lines = context.split("\\n")\nlen(lines)')).toBe('4\n');
    });
  });

  it('lets model code rebind a helper name as its own variable', async () => {
    await withSandbox({ context: TEXT }, async (sandbox) => {
      const result = await sandbox.execute('lines = context.split("\\n")');
      expect(result.locals).toEqual({ lines: 'array' });
      expect(await run(sandbox, 'len(lines)')).toBe('4\n');
    });
  });
});
