import { readFile } from 'node:fs/promises';
import { RlmError } from '@rlm/protocol';
import type { AllowedFile } from './allowed-roots.js';

/** The largest context one `context_load` reads, all inputs together (the CLI's default). */
export const DEFAULT_MAX_CONTEXT_BYTES = 100_000_000;
/** Characters of the loaded context shown back as a preview. */
export const CONTEXT_PREVIEW_CHARS = 500;

const BINARY_SNIFF_BYTES = 8000;

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

async function readAllowed(file: AllowedFile): Promise<Buffer> {
  try {
    return await readFile(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    throw new RlmError({
      code: 'mcp.context_unreadable',
      message: `Cannot read ${file.label}: ${code}.`,
      details: { path: file.label, reason: code },
      cause: error,
    });
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
    const buffer = await readAllowed(file);
    const content = isText(buffer);
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
    bytes += buffer.byteLength;
    if (bytes > maxBytes) throw tooLarge(file.label, bytes, maxBytes);
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
