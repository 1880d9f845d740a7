import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { GUEST_PRELUDE } from '../engine/guest-prelude.generated.js';

const run = promisify(execFile);
const EMBED = join(import.meta.dirname, '..', '..', '..', '..', 'scripts', 'embed-script.mjs');

/** Embeds `modules` (file name → source) as a guest script; the script's exit and output. */
async function embed(modules: Record<string, string>) {
  const dir = await mkdtemp(join(tmpdir(), 'rlm-embed-'));
  try {
    for (const [name, source] of Object.entries(modules)) await writeFile(join(dir, name), source);
    const job = { entry: 'entry.ts', out: 'out.ts', name: 'OUT', expose: 'main', profile: 'guest' };
    await writeFile(join(dir, 'embed.json'), JSON.stringify([job]));
    try {
      await run(process.execPath, [EMBED, 'embed.json'], { cwd: dir });
      return { ok: true, output: await readFile(join(dir, 'out.ts'), 'utf8') };
    } catch (error) {
      return { ok: false, output: String((error as { stderr?: string }).stderr) };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Each test starts Node with the TypeScript compiler: slow on a busy machine.
describe('guest sources', { timeout: 120_000 }, () => {
  it('are embedded as one script that evaluates to installScaffold', () => {
    expect(GUEST_PRELUDE.startsWith('(function () {')).toBe(true);
    expect(GUEST_PRELUDE).toContain('return installScaffold;');
    expect(GUEST_PRELUDE).not.toMatch(/^\s*(import|export)\s/m);
  });

  it('may not use syntax that consults built-ins guest code can change', async () => {
    const forbidden = {
      'for…of': 'for (const item of [1]) {}',
      spread: 'const copy = [...[1]];',
      'array destructuring': 'const [first] = [1];',
      instanceof: 'const ok = {} instanceof Object;',
      'async functions': 'async function later() {}',
    };
    const body = Object.values(forbidden).join('\n');
    const result = await embed({ 'entry.ts': `export function main() {\n${body}\n}\n` });
    expect(result.ok).toBe(false);
    // One problem per line of the body, each named with its line.
    for (const line of [2, 3, 4, 5, 6]) expect(result.output).toContain(`entry.ts:${line}:`);
  });

  it('may not join strings with a template, which QuickJS does through String.prototype.concat', async () => {
    const refused = await embed({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: TypeScript source the test embeds
      'entry.ts': 'export function main(n: number) {\n  return `n=${n}`;\n}\n',
    });
    expect(refused).toMatchObject({ ok: false, output: expect.stringContaining('entry.ts:2:') });
    const plain = await embed({
      'entry.ts': 'export function main(n: number) {\n  return `n=` + n;\n}\n',
    });
    expect(plain.ok).toBe(true);
  });

  it('refuses a name declared in two modules, which would share one scope', async () => {
    const result = await embed({
      'entry.ts':
        "import { helper } from './other.js';\nconst value = 1;\nexport function main() { return helper() + value; }\n",
      'other.ts': 'const value = 2;\nexport function helper() { return value; }\n',
    });
    expect(result).toMatchObject({
      ok: false,
      output: expect.stringContaining('value is declared in both'),
    });
  });

  it('orders modules dependencies first, without their module syntax', async () => {
    const result = await embed({
      'entry.ts':
        "import { helper } from './other.js';\nexport function main(): number { return helper(); }\n",
      'other.ts': 'export function helper(): number { return 42; }\n',
    });
    expect(result.ok).toBe(true);
    const script = JSON.parse(/= (".*");/s.exec(result.output)?.[1] ?? '""') as string;
    expect((runInNewContext(script) as () => number)()).toBe(42);
    expect(script.indexOf('function helper')).toBeLessThan(script.indexOf('function main'));
  });
});
