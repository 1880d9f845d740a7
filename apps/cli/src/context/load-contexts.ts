import { stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { glob, isDynamicPattern } from 'tinyglobby';
import { assertHasText, emptyContextError } from './empty-context-error.js';
import { readTextFile, tooLarge } from './read-text-file.js';

/** One `--context` argument after loading. */
export interface LoadedContext {
  /** The argument as given (`-` for standard input). */
  label: string;
  /** A file or stdin gives its text; a directory or glob gives `{ relativePath: text }`. */
  value: string | Record<string, string>;
  bytes: number;
  files: number;
  /** Binary files skipped inside a directory or glob. */
  skippedBinary: string[];
}

export interface LoadContextsOptions {
  cwd: string;
  readStdin(): Promise<string>;
  /** Globs a directory keeps (everything when empty). */
  include: readonly string[];
  /** Globs a directory or glob skips. */
  exclude: readonly string[];
  /** The limit for all contexts together. */
  maxBytes: number;
  /**
   * Take a file or standard input with no text. Trace and replay read back what a run was
   * given, and runs recorded before empty input was refused may have had an empty one.
   */
  allowEmpty?: boolean;
}

/**
 * Loads each `--context` argument: `-` reads standard input, a file its text, a directory every
 * text file below it (after include/exclude), and a glob pattern its matches.
 *
 * @throws RlmError `cli.usage` for `-` given twice; `cli.context_unreadable`,
 *   `cli.context_binary`, `cli.context_empty` (a directory or glob with no text file left, or a
 *   file or standard input with nothing but whitespace), `cli.context_too_large`
 */
export async function loadContexts(
  specs: readonly string[],
  options: LoadContextsOptions,
): Promise<LoadedContext[]> {
  assertStdinOnce(specs);
  const loaded: LoadedContext[] = [];
  let total = 0;
  for (const spec of specs) {
    const context = await loadOne(spec, { ...options, maxBytes: options.maxBytes - total });
    total += context.bytes;
    loaded.push(context);
  }
  return loaded;
}

async function loadOne(spec: string, options: LoadContextsOptions): Promise<LoadedContext> {
  if (spec === '-') {
    const text = await options.readStdin();
    const bytes = Buffer.byteLength(text);
    if (bytes > options.maxBytes) throw tooLarge('(standard input)', bytes, options.maxBytes);
    if (options.allowEmpty !== true) assertHasText(text, 'stdin', spec);
    return { label: '-', value: text, bytes, files: 1, skippedBinary: [] };
  }
  const path = resolve(options.cwd, spec);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) {
    const patterns = options.include.length > 0 ? [...options.include] : ['**/*'];
    const files = await glob(patterns, { cwd: path, ignore: [...options.exclude], dot: false });
    const loaded = await loadMany(spec, files.sort(), { ...options, cwd: path });
    if (loaded.files > 0) return loaded;
    throw await emptyContextError({
      label: spec,
      dir: path,
      binary: loaded.skippedBinary,
      include: options.include,
      exclude: options.exclude,
      kind: 'directory',
    });
  }
  if (info === undefined && isDynamicPattern(spec)) {
    const files = await glob([spec], { cwd: options.cwd, ignore: [...options.exclude] });
    if (files.length === 0) {
      throw new RlmError({
        code: 'cli.context_unreadable',
        message: `Context pattern ${spec} matched no files; check the pattern (quote it so the shell does not expand it).`,
        details: { path: spec, reason: 'no_match' },
      });
    }
    const loaded = await loadMany(spec, files.sort(), options);
    if (loaded.files > 0) return loaded;
    throw await emptyContextError({
      label: spec,
      dir: options.cwd,
      binary: loaded.skippedBinary,
      include: [],
      exclude: options.exclude,
      kind: 'glob',
    });
  }
  const result = await readTextFile(path, { label: spec, maxBytes: options.maxBytes });
  if (!result.ok) {
    throw new RlmError({
      code: 'cli.context_binary',
      message: `Context file ${spec} is binary, not text; pass a text file, or its directory so binary files are skipped.`,
      details: { path: spec },
    });
  }
  if (options.allowEmpty !== true) assertHasText(result.text, 'file', spec);
  return { label: spec, value: result.text, bytes: result.bytes, files: 1, skippedBinary: [] };
}

async function loadMany(
  label: string,
  files: readonly string[],
  options: LoadContextsOptions,
): Promise<LoadedContext> {
  const value: Record<string, string> = {};
  const skippedBinary: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const absolute = resolve(options.cwd, file);
    const name = relative(options.cwd, absolute);
    const remaining = options.maxBytes - bytes;
    const result = await readTextFile(absolute, { label: name, maxBytes: Number.MAX_SAFE_INTEGER });
    if (!result.ok) {
      skippedBinary.push(name);
      continue;
    }
    if (result.bytes > remaining) throw tooLarge(label, bytes + result.bytes, options.maxBytes);
    value[name] = result.text;
    bytes += result.bytes;
  }
  return { label, value, bytes, files: Object.keys(value).length, skippedBinary };
}

/** Standard input can be read once: a second `-` would be an empty context, silently. */
function assertStdinOnce(specs: readonly string[]): void {
  const count = specs.filter((spec) => spec === '-').length;
  if (count < 2) return;
  throw new RlmError({
    code: 'cli.usage',
    message: `--context - (standard input) is given ${count} times, but standard input can be read only once; pass - once, and save the other input to a file.`,
    details: { option: '--context' },
  });
}
