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
