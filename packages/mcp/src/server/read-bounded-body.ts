import {
  type OversizedMessage,
  PEEK_BYTES,
  peekOversizedMessage,
} from './peek-oversized-message.js';

/** A request body read within a limit, or what is known of one past it. */
export type BoundedBody =
  | { ok: true; text: string }
  | ({ ok: false; bytes: number } & OversizedMessage);

/** Bytes read past the limit (to find the id at the end of an answer) before giving up. */
const MAX_DRAIN_BYTES = 1024 * 1024 * 1024;

/**
 * Reads a request's body up to `maxBytes`. Past it, the rest is read and dropped (only the
 * first and last few KiB are kept), so the id of an oversized message can still be found:
 * the TypeScript SDK writes it last.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<BoundedBody> {
  const reader = request.body?.getReader();
  if (reader === undefined) return { ok: true, text: '' };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let head: Buffer | null = null;
  let tail = Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (head === null && bytes <= maxBytes) {
      chunks.push(value);
      continue;
    }
    if (head === null) {
      const start = Buffer.concat([...chunks, value]);
      head = Buffer.from(start.subarray(0, PEEK_BYTES));
      tail = Buffer.from(start.subarray(Math.max(0, start.length - PEEK_BYTES)));
      chunks.length = 0;
    } else {
      const joined = Buffer.concat([tail, value]);
      tail = Buffer.from(joined.subarray(Math.max(0, joined.length - PEEK_BYTES)));
    }
    if (bytes > maxBytes + MAX_DRAIN_BYTES) {
      await reader.cancel().catch(() => undefined);
      tail = Buffer.alloc(0);
      break;
    }
  }
  if (head === null) return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
  return {
    ok: false,
    bytes,
    ...peekOversizedMessage(head.toString('utf8'), tail.toString('utf8')),
  };
}
