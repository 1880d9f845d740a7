import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXCLUDE } from '../config/config-schema.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';
import { formatContextReport } from './format-context-report.js';
import { type LoadContextsOptions, loadContexts } from './load-contexts.js';

let sandbox: Sandbox;
let options: LoadContextsOptions;
beforeEach(() => {
  sandbox = createSandbox();
  options = {
    cwd: sandbox.dir,
    readStdin: async () => 'from stdin',
    include: [],
    exclude: DEFAULT_EXCLUDE,
    maxBytes: 1_000_000,
  };
});
afterEach(() => sandbox.dispose());

function write(path: string, content: string | Buffer): void {
  mkdirSync(join(sandbox.dir, path, '..'), { recursive: true });
  writeFileSync(join(sandbox.dir, path), content);
}

describe('loadContexts', () => {
  it('loads a file as text and stdin for -', async () => {
    write('notes.txt', 'hello');
    const [file, stdin] = await loadContexts(['notes.txt', '-'], options);
    expect(file?.value).toBe('hello');
    expect(stdin?.value).toBe('from stdin');
  });

  it('loads a directory recursively as { path: text }, skipping excluded and binary files', async () => {
    write('docs/a.md', 'A');
    write('docs/deep/b.md', 'BB');
    write('docs/node_modules/x.md', 'ignored');
    write('docs/logo.png', Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const [context] = await loadContexts(['docs'], options);
    expect(context?.value).toEqual({ 'a.md': 'A', 'deep/b.md': 'BB' });
    expect(context?.skippedBinary).toEqual(['logo.png']);
    expect(formatContextReport([context!])).toEqual([
      'context ← docs: 2 files, 3 B (skipped 1 binary file: logo.png)',
    ]);
  });

  it('keeps only included files of a directory', async () => {
    write('src/a.ts', 'a');
    write('src/b.js', 'b');
    const [context] = await loadContexts(['src'], { ...options, include: ['**/*.ts'] });
    expect(context?.value).toEqual({ 'a.ts': 'a' });
  });

  it('expands a glob pattern relative to the working directory', async () => {
    write('logs/1.log', 'one');
    write('logs/2.log', 'two');
    write('logs/3.txt', 'three');
    const [context] = await loadContexts(['logs/*.log'], options);
    expect(context?.value).toEqual({ 'logs/1.log': 'one', 'logs/2.log': 'two' });
  });

  it('refuses contexts whose total is over the maximum', async () => {
    write('a.txt', 'x'.repeat(600));
    write('b.txt', 'y'.repeat(600));
    await expect(
      loadContexts(['a.txt', 'b.txt'], { ...options, maxBytes: 1000 }),
    ).rejects.toSatisfy((error) => RlmError.is(error, 'cli.context_too_large'));
  });

  it('refuses a binary file passed directly', async () => {
    write('image.bin', Buffer.from([1, 2, 0, 3]));
    await expect(loadContexts(['image.bin'], options)).rejects.toSatisfy((error) =>
      RlmError.is(error, 'cli.context_binary'),
    );
  });

  it('treats invalid UTF-8 as binary', async () => {
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await expect(loadContexts(['latin1.txt'], options)).rejects.toSatisfy((error) =>
      RlmError.is(error, 'cli.context_binary'),
    );
  });
});

describe('loadContexts refusing contexts with nothing to read', () => {
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'loaded',
      (error: unknown) => (RlmError.is(error) ? error : 'not an RlmError'),
    );

  it('refuses an empty directory', async () => {
    mkdirSync(join(sandbox.dir, 'empty'));
    expect(await codeOf(loadContexts(['empty'], options))).toMatchObject({
      code: 'cli.context_empty',
      message: 'Context directory empty is empty; pass a directory with text files in it.',
      details: { path: 'empty', skipped: [] },
    });
  });

  it('names each skipped file and why: binary, excluded, hidden, not included', async () => {
    write('docs/logo.png', Buffer.from([0x89, 0x50, 0x00, 0x01]));
    write('docs/node_modules/pkg/index.md', 'excluded');
    write('docs/.env', 'hidden');
    const error = await codeOf(loadContexts(['docs'], options));
    expect(error).toMatchObject({ code: 'cli.context_empty' });
    expect((error as RlmError<'cli.context_empty'>).details.skipped).toEqual([
      { file: '.env', reason: 'hidden' },
      { file: 'logo.png', reason: 'binary' },
      { file: 'node_modules/pkg/index.md', reason: 'excluded by **/node_modules/**' },
    ]);
    expect((error as RlmError).message).toBe(
      'Context directory docs has no text file to read: skipped 1 file hidden (a name starting with a dot) (.env), 1 file binary (logo.png), 1 file excluded by **/node_modules/** (node_modules/pkg/index.md); pass text files, or change --include/--exclude.',
    );
    write('src/a.js', 'a');
    write('src/b.js', 'b');
    expect(await codeOf(loadContexts(['src'], { ...options, include: ['**/*.ts'] }))).toMatchObject(
      {
        details: {
          skipped: [
            { file: 'a.js', reason: 'not matched by --include' },
            { file: 'b.js', reason: 'not matched by --include' },
          ],
        },
      },
    );
  });

  it('refuses a glob that matched only binary files', async () => {
    write('img/a.png', Buffer.from([0, 1]));
    write('img/b.png', Buffer.from([0, 2]));
    expect(await codeOf(loadContexts(['img/*.png'], options))).toMatchObject({
      code: 'cli.context_empty',
      message:
        'Context pattern img/*.png has no text file to read: skipped 2 files binary (img/a.png, img/b.png); pass text files, or change --include/--exclude.',
    });
  });

  it('refuses - given twice before reading standard input', async () => {
    let reads = 0;
    const counting = { ...options, readStdin: async () => `read ${++reads}` };
    expect(await codeOf(loadContexts(['-', 'x.txt', '-'], counting))).toMatchObject({
      code: 'cli.usage',
      details: { option: '--context' },
      message:
        '--context - (standard input) is given 2 times, but standard input can be read only once; pass - once, and save the other input to a file.',
    });
    expect(reads).toBe(0);
  });
});

describe('formatContextReport', () => {
  it('names several contexts as the array indexes the model will use', async () => {
    write('a.txt', 'aa');
    const contexts = await loadContexts(['a.txt', '-'], options);
    expect(formatContextReport(contexts)).toEqual([
      'context_0 ← a.txt: 2 B',
      'context_1 ← standard input: 10 B',
    ]);
  });
});
