import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { interpreterFlags } from './host/permission-flags.js';

/**
 * The second wall, checked directly: a Node script started with the interpreter process's flags
 * (allowed to read one directory) tries what escaped code would try.
 */
describe('interpreter process flags', () => {
  const root = mkdtempSync(join(tmpdir(), 'rlm-python-flags-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('allow reading the named directories only: no other reads, no writes, no subprocess, no eval', () => {
    const allowed = join(root, 'allowed');
    mkdirSync(allowed);
    writeFileSync(join(root, 'secret.txt'), 'secret');
    const script = join(allowed, 'probe.mjs');
    writeFileSync(
      script,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        "import { execFileSync } from 'node:child_process';",
        'const outcome = (fn) => { try { fn(); return "allowed"; } catch (e) { return e.code ?? e.name; } };',
        'console.log(JSON.stringify({',
        `  ownRead: outcome(() => readFileSync(${JSON.stringify(script)})),`,
        `  otherRead: outcome(() => readFileSync(${JSON.stringify(join(root, 'secret.txt'))})),`,
        `  write: outcome(() => writeFileSync(${JSON.stringify(join(allowed, 'w.txt'))}, 'x')),`,
        "  spawn: outcome(() => execFileSync('true')),",
        "  evaluate: outcome(() => new Function('return 1')()),",
        '  env: Object.keys(process.env).length,',
        '}));',
      ].join('\n'),
    );
    const result = spawnSync(process.execPath, [...interpreterFlags([allowed]), script], {
      env: {},
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      ownRead: 'allowed',
      otherRead: 'ERR_ACCESS_DENIED',
      write: 'ERR_ACCESS_DENIED',
      spawn: 'ERR_ACCESS_DENIED',
      evaluate: 'EvalError',
      env: 0,
    });
  });
});
