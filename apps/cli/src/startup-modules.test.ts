import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN_PATH, createSandbox } from './testing/spawn-cli.js';

// A fresh process pays for every module it reads (resolve, read, compile): the built bin is a
// bundle, and `--version` / `--help` read only the few files they need. Counted, not timed.
const sandbox = createSandbox();
afterAll(() => sandbox.dispose());

const HOOKS = join(sandbox.dir, 'hooks.mjs');
writeFileSync(
  HOOKS,
  [
    "import { appendFileSync } from 'node:fs';",
    'export async function load(url, context, nextLoad) {',
    "  if (url.startsWith('file:')) appendFileSync(process.env.RLM_LOADED_LOG, url + '\\n');",
    '  return nextLoad(url, context);',
    '}',
  ].join('\n'),
);
const REGISTER = join(sandbox.dir, 'register.mjs');
writeFileSync(
  REGISTER,
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(HOOKS).href)});\n`,
);

/** Runs the built bin and returns its stdout and the files its process loaded. */
function loadedBy(args: string[]): { stdout: string; files: string[] } {
  const log = join(sandbox.dir, `loaded-${args.join('_')}.log`);
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', REGISTER, BIN_PATH, ...args], {
    cwd: sandbox.dir,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...sandbox.env, RLM_LOADED_LOG: log },
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && line !== pathToFileURL(REGISTER).href)
    .map((url) => fileURLToPath(url));
  return { stdout: result.stdout, files };
}

describe('the built rlm bin', () => {
  const dist = dirname(BIN_PATH);
  const { version } = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as {
    version: string;
  };

  it('answers --version from its own file alone', () => {
    for (const flag of ['--version', '-V']) {
      const { stdout, files } = loadedBy([flag]);
      expect(stdout).toBe(`${version}\n`);
      expect(files).toEqual([BIN_PATH]);
    }
  });

  it('shows --help from a handful of its own bundled files, no package from node_modules', () => {
    const { stdout, files } = loadedBy(['--help']);
    expect(stdout).toContain('Usage: rlm');
    expect(files.filter((file) => !file.startsWith(`${dist}/`))).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(20);
  });
});

describe('the first rlm run of a process', () => {
  it('loads no live-view terminal code when its progress goes to a pipe', () => {
    writeFileSync(join(sandbox.dir, 'notes.txt'), 'Meeting notes. The magic number is 42.\n');
    const { stdout, files } = loadedBy([
      'run',
      'What is the magic number?',
      '--context',
      'notes.txt',
      '--model',
      'testkit:needle-finder',
      '--json',
    ]);
    expect((JSON.parse(stdout) as { answer: unknown }).answer).toBe('42');
    // The bundle names each module it holds in a comment: log-update is in none of these files.
    const withLiveView = files.filter((file) =>
      readFileSync(file, 'utf8').includes('/log-update@'),
    );
    expect(withLiveView).toEqual([]);
  });
  it('loads no offline policy code (testkit, eval) for a run on a provider model', () => {
    writeFileSync(join(sandbox.dir, 'notes.txt'), 'Meeting notes. The magic number is 42.\n');
    const log = join(sandbox.dir, 'loaded-provider.log');
    writeFileSync(log, '');
    // No key in the environment: the run stops at resolving its model, which is what is looked at.
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        REGISTER,
        BIN_PATH,
        'run',
        'q',
        '--context',
        'notes.txt',
        '--model',
        'anthropic/claude-sonnet-4-5',
      ],
      {
        cwd: sandbox.dir,
        env: {
          PATH: process.env['PATH'] ?? '',
          NO_COLOR: '1',
          ...sandbox.env,
          RLM_LOADED_LOG: log,
        },
        encoding: 'utf8',
      },
    );
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    const files = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('file:'))
      .map((url) => fileURLToPath(url));
    const offline = files.filter((file) =>
      /packages\/(testkit|eval)\/dist\//.test(readFileSync(file, 'utf8')),
    );
    expect(offline).toEqual([]);
  });
});
