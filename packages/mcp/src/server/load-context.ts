import type { Stats } from 'node:fs';
import { constants, type FileHandle, open } from 'node:fs/promises';
import { RlmError } from '@rlm/protocol';
import type { AllowedFile } from './allowed-roots.js';

/** The largest context one `context_load` reads, all inputs together (the CLI's default). */
export const DEFAULT_MAX_CONTEXT_BYTES = 100_000_000;
/** Characters of the loaded context shown back as a preview. */
export const CONTEXT_PREVIEW_CHARS = 500;

const BINARY_SNIFF_BYTES = 8000;
/** Bytes read at a time: the most a file over the budget costs before it is refused. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** What `context_load` put into the sandbox. */
export interface LoadedContext {
  text: string;
  bytes: number;
  files: string[];
  /** Binary files below a directory or glob that were left out. */
  skippedBinary: string[];
}

function tooLarge(label: string, bytes: number, maxBytes: number) {
  return new RlmError({
    code: 'mcp.context_too_large',
    message: `The context is over the limit at ${label}: ${bytes} bytes, the maximum is ${maxBytes} (the server's --max-context-bytes); load fewer files or a narrower glob.`,
    details: { path: label, bytes, maxBytes },
  });
}

function isText(buffer: Buffer): string | null {
  if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
  } catch {
    return null;
  }
}

function unreadable(
  file: AllowedFile,
  { reason, message, cause }: { reason: string; message: string; cause?: unknown },
) {
  return new RlmError({
    code: 'mcp.context_unreadable',
    message,
    details: { path: file.label, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

function ioError(file: AllowedFile, error: unknown) {
  const reason = (error as NodeJS.ErrnoException).code ?? 'unknown';
  return unreadable(file, {
    reason,
    message: `Cannot read ${file.label}: ${reason}.`,
    cause: error,
  });
}

/** What a file that is not a regular one is, in words and as a reason code. */
function fileKind(info: Stats): { reason: string; words: string } {
  if (info.isDirectory()) return { reason: 'directory', words: 'a directory' };
  if (info.isFIFO()) return { reason: 'fifo', words: 'a named pipe (FIFO)' };
  if (info.isCharacterDevice() || info.isBlockDevice()) {
    return { reason: 'device', words: 'a device' };
  }
  if (info.isSocket()) return { reason: 'socket', words: 'a socket' };
  return { reason: 'not_regular', words: 'not a regular file' };
}

interface ReadBudget {
  /** Bytes this file may have. */
  budget: number;
  maxBytes: number;
  /** Bytes the inputs before it took. */
  spent: number;
}

/** The bytes of an open regular file, counted as they come; `null` when its start is binary. */
async function readCapped(
  file: AllowedFile,
  { handle, size }: { handle: FileHandle; size: number },
  { budget, maxBytes, spent }: ReadBudget,
): Promise<Buffer | null> {
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    if (total === 0 && chunk.subarray(0, Math.min(bytesRead, BINARY_SNIFF_BYTES)).includes(0)) {
      return null;
    }
    total += bytesRead;
    // The size `fstat` gave is checked too: a file far over the budget stops after one chunk.
    if (total > budget || size > budget) {
      throw tooLarge(file.label, spent + Math.max(total, size), maxBytes);
    }
    chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
  }
}

/**
 * Reads one allowed file within its budget; `null` when it is binary. It is opened without
 * blocking (a FIFO with no writer would otherwise hold one of Node's few file-I/O threads for
 * good), `fstat`ed before a byte is read (only regular files), and counted while read (a file
 * over the budget, or growing past it, is stopped there, not read to its end).
 */
async function readAllowed(file: AllowedFile, budget: ReadBudget): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await open(file.path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw ioError(file, error);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      const { reason, words } = fileKind(info);
      throw unreadable(file, {
        reason,
        message: `${file.label} is ${words}, not a regular file; load a file.`,
      });
    }
    const buffer = await readCapped(file, { handle, size: info.size }, budget);
    return buffer === null ? null : isText(buffer);
  } catch (error) {
    throw RlmError.is(error) ? error : ioError(file, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * One context string from inline text and files: a single input is kept as it is; several are
 * joined, each after a `=== <path> ===` line that marks where it starts (inline text is marked
 * `=== (text) ===`). Binary files are skipped when there are others, refused when alone.
 *
 * @throws RlmError `mcp.context_too_large` over `maxBytes` (nothing is kept),
 *   `mcp.context_unreadable` for an unreadable or binary file named on its own
 */
export async function loadContext(
  { text, files }: { text?: string | undefined; files: readonly AllowedFile[] },
  { maxBytes = DEFAULT_MAX_CONTEXT_BYTES }: { maxBytes?: number } = {},
): Promise<LoadedContext> {
  const parts: { label: string; text: string }[] = [];
  let bytes = 0;
  if (text !== undefined) {
    bytes += Buffer.byteLength(text);
    if (bytes > maxBytes) throw tooLarge('(text)', bytes, maxBytes);
    parts.push({ label: '(text)', text });
  }
  const skippedBinary: string[] = [];
  for (const file of files) {
    const content = await readAllowed(file, { budget: maxBytes - bytes, maxBytes, spent: bytes });
    if (content === null) {
      if (files.length === 1 && text === undefined) {
        throw new RlmError({
          code: 'mcp.context_unreadable',
          message: `${file.label} is binary, not text; load a text file.`,
          details: { path: file.label, reason: 'binary' },
        });
      }
      skippedBinary.push(file.label);
      continue;
    }
    bytes += Buffer.byteLength(content);
    parts.push({ label: file.label, text: content });
  }
  const joined =
    parts.length === 1
      ? (parts[0]?.text ?? '')
      : parts.map((part) => `=== ${part.label} ===\n${part.text}`).join('\n\n');
  return {
    text: joined,
    bytes,
    files: parts.filter((part) => part.label !== '(text)').map((part) => part.label),
    skippedBinary,
  };
}
