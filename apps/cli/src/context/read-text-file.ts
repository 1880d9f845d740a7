import { readFile, stat } from 'node:fs/promises';
import { RlmError } from '@rlm/protocol';
import { formatBytes } from './format-bytes.js';

/** How much of a file is checked for NUL bytes, the cheap and reliable binary signal. */
const BINARY_SNIFF_BYTES = 8000;

/** A file's text, or why it was not text. */
export type TextFileResult =
  | { ok: true; text: string; bytes: number }
  | { ok: false; binary: true };

export interface ReadTextFileOptions {
  /** The path as the user wrote it, for messages. */
  label: string;
  /** Refuse the file when it is larger than this many bytes. */
  maxBytes: number;
}

/**
 * Reads a UTF-8 text file. Binary content (a NUL byte, or bytes that are not UTF-8) is reported
 * as `{ ok: false }` so directory loads can skip it; the caller decides whether that is an error.
 *
 * @throws RlmError `cli.context_unreadable` when the file cannot be read;
 *   `cli.context_too_large` when it is over `maxBytes`
 */
export async function readTextFile(
  path: string,
  { label, maxBytes }: ReadTextFileOptions,
): Promise<TextFileResult> {
  let buffer: Buffer;
  try {
    const info = await stat(path);
    if (info.size > maxBytes) throw tooLarge(label, info.size, maxBytes);
    buffer = await readFile(path);
  } catch (error) {
    if (RlmError.is(error)) throw error;
    throw unreadable(label, error);
  }
  if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return { ok: false, binary: true };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer);
    return { ok: true, text, bytes: buffer.byteLength };
  } catch {
    return { ok: false, binary: true };
  }
}

/** The error for a context over the size limit, with the two ways out. */
export function tooLarge(label: string, bytes: number, maxBytes: number) {
  return new RlmError({
    code: 'cli.context_too_large',
    message: `Context ${label} is ${formatBytes(bytes)}, over the ${formatBytes(maxBytes)} maximum; raise it with --max-context-bytes or narrow the input with --include/--exclude.`,
    details: { path: label, bytes, maxBytes },
  });
}

function unreadable(label: string, error: unknown) {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'no such file or directory; check the path (or pass - to read standard input)'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied; check the file permissions'
        : code === 'EISDIR'
          ? 'it is a directory that cannot be listed'
          : `${code ?? 'read error'}; check that it is a readable file`;
  return new RlmError({
    code: 'cli.context_unreadable',
    message: `Cannot read context ${label}: ${reason}.`,
    details: { path: label, reason: code ?? 'unknown' },
    cause: error,
  });
}
