import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtScript } from './host/built-script.js';
import { run, withSandbox } from './sandbox-cases.test-helpers.js';

const sourceDir = fileURLToPath(new URL('./child/python/', import.meta.url));
const sources = readdirSync(sourceDir)
  .filter((file) => file.endsWith('.py'))
  .map((file) => ({ file, text: readFileSync(`${sourceDir}${file}`, 'utf8') }));
const constantName = (file: string) => `PYTHON_${file.replace(/\.py$/, '').toUpperCase()}`;

describe('the Python sources of the interpreter', () => {
  it('are embedded in the build as they are in src/child/python', async () => {
    // The interpreter process runs the built worker, so the built copy is the one that counts.
    const built = (await import(
      builtScript('./child/python-sources.generated.js', import.meta.url)
    )) as Record<string, unknown>;
    expect(sources.map(({ file }) => file)).toEqual(['hardening.py', 'scaffold.py']);
    for (const { file, text } of sources) expect(built[constantName(file)], file).toBe(text);
  });

  it.each(sources)('$file compiles in the interpreter sandboxes run', async ({ file, text }) => {
    await withSandbox({ context: text }, async (sandbox) => {
      const code = `compile(context, ${JSON.stringify(file)}, 'exec')\nprint('compiled')`;
      expect(await run(sandbox, code)).toBe('compiled\n');
    });
  });
});
