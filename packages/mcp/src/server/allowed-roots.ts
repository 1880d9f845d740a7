import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { glob, isDynamicPattern } from 'tinyglobby';

/** Directories nobody means to load when they name a project folder. */
export const DEFAULT_CONTEXT_EXCLUDE: readonly string[] = [
  '**/node_modules/**',
  '**/.git/**',
  '**/dist/**',
];

/** A file a tool call may read: its real path and how messages and markers name it. */
export interface AllowedFile {
  path: string;
  /** Relative to the root that holds it. */
  label: string;
}

/**
 * The real paths of `roots` (symlinks resolved), so a later check compares like with like.
 * A root that does not exist is dropped: it can hold no file.
 */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const real = await Promise.all(roots.map((root) => realpath(resolve(root)).catch(() => null)));
  return [...new Set(real.filter((root): root is string => root !== null))];
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function rootOf(roots: readonly string[], path: string): string | undefined {
  return roots.find((root) => inside(root, path));
}

function refused(
  path: string,
  reason: 'outside_roots' | 'symlink_escape',
  roots: readonly string[],
) {
  const why =
    reason === 'outside_roots'
      ? 'it is outside the allowed roots'
      : 'it is a symlink that leads outside the allowed roots';
  return new RlmError({
    code: 'mcp.path_refused',
    message: `Path ${path} is refused: ${why} (${roots.join(', ')}). Name a file inside them, or start the server with --root for another directory.`,
    details: { path, reason },
  });
}

/** The file behind `absolute` if its real path stays inside a root (a symlink may not leave). */
async function checkedFile(
  absolute: string,
  { roots, spec }: { roots: readonly string[]; spec: string },
): Promise<AllowedFile> {
  const real = await realpath(absolute).catch((error: NodeJS.ErrnoException) => {
    throw new RlmError({
      code: 'mcp.context_unreadable',
      message: `Cannot read ${spec}: ${error.code === 'ENOENT' ? 'no such file or directory' : (error.code ?? 'read error')}.`,
      details: { path: spec, reason: error.code ?? 'unknown' },
    });
  });
  const root = rootOf(roots, real);
  if (root === undefined) throw refused(spec, 'symlink_escape', roots);
  return { path: real, label: relative(root, real) || real };
}

/** The leading part of a glob with no magic in it: where the search starts. */
function globBase(pattern: string): { base: string; rest: string } {
  const parts = pattern.split('/');
  const index = parts.findIndex((part) => isDynamicPattern(part));
  return { base: parts.slice(0, index).join('/') || '.', rest: parts.slice(index).join('/') };
}

/** The files one spec names: a file, every file below a directory, or a glob's matches. */
async function filesOf(
  spec: string,
  {
    roots,
    first,
    exclude,
  }: { roots: readonly string[]; first: string; exclude: readonly string[] },
): Promise<AllowedFile[]> {
  const dynamic = isDynamicPattern(spec);
  const { base, rest } = dynamic ? globBase(spec) : { base: spec, rest: '' };
  const absoluteBase = resolve(first, base);
  // Lexical check first: `..` and foreign absolute paths never touch the disk.
  if (rootOf(roots, absoluteBase) === undefined || rest.split('/').includes('..')) {
    throw refused(spec, 'outside_roots', roots);
  }
  const info = dynamic ? undefined : await stat(absoluteBase).catch(() => undefined);
  if (!dynamic && !info?.isDirectory()) return [await checkedFile(absoluteBase, { roots, spec })];
  const realBase = (await checkedFile(absoluteBase, { roots, spec })).path;
  const matches = await glob(dynamic ? [rest] : ['**/*'], {
    cwd: realBase,
    ignore: [...exclude],
    dot: false,
    followSymbolicLinks: false,
    onlyFiles: true,
  });
  if (dynamic && matches.length === 0) {
    throw new RlmError({
      code: 'mcp.context_unreadable',
      message: `Pattern ${spec} matched no files.`,
      details: { path: spec, reason: 'no_match' },
    });
  }
  const files: AllowedFile[] = [];
  for (const match of matches.sort()) {
    files.push(await checkedFile(resolve(realBase, match), { roots, spec: match }));
  }
  return files;
}

export interface ResolveAllowedOptions {
  /** Real paths of the allowed roots; relative paths resolve against the first. */
  roots: readonly string[];
  /** Globs a directory or glob skips. @default DEFAULT_CONTEXT_EXCLUDE */
  exclude?: readonly string[];
}

/**
 * The files `specs` name, each checked to lie inside an allowed root: a file, a directory (every
 * file below it) or a glob. `..`, absolute paths outside the roots and symlinks that leave them
 * are refused; nothing is read here. A file named twice is listed once.
 *
 * @throws RlmError `mcp.path_refused`, `mcp.context_unreadable` (missing file, a glob with no match)
 */
export async function resolveAllowedFiles(
  specs: readonly string[],
  { roots, exclude = DEFAULT_CONTEXT_EXCLUDE }: ResolveAllowedOptions,
): Promise<AllowedFile[]> {
  const [first] = roots;
  if (first === undefined) {
    throw new RlmError({
      code: 'mcp.path_refused',
      message:
        'No files can be read: this server allows no directory (no client root, no working directory, no configured root); pass text instead, or configure a root.',
      details: { path: specs[0] ?? '', reason: 'outside_roots' },
    });
  }
  const files: AllowedFile[] = [];
  for (const spec of specs) files.push(...(await filesOf(spec, { roots, first, exclude })));
  // A file named twice (a glob and its directory) is loaded once, where it first appeared.
  return files.filter(
    (file, index) => files.findIndex((other) => other.path === file.path) === index,
  );
}
