import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { RlmError } from '@rlm/protocol';
import { PEEK_BYTES, peekOversizedMessage } from './peek-oversized-message.js';

/**
 * The largest JSON-RPC message `rlm mcp` reads or writes over stdio, in bytes: the SDK
 * clients' own limit, so what we send, they can read. @default 10 MiB
 */
export const DEFAULT_STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

function firstBytes(buffers: readonly Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let left = count;
  for (const buffer of buffers) {
    if (left <= 0) break;
    out.push(buffer.subarray(0, left));
    left -= buffer.length;
  }
  return Buffer.from(Buffer.concat(out));
}

function lastBytes(previous: Buffer, next: Buffer, count: number): Buffer {
  // A copy, so a large chunk read from the stream is not kept alive by its last bytes.
  if (next.length >= count) return Buffer.from(next.subarray(next.length - count));
  const joined = Buffer.concat([previous, next]);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - count)));
}

function mebibytes(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

/** Options of `BoundedStdioTransport`. */
export interface BoundedStdioTransportOptions {
  /** @default DEFAULT_STDIO_MAX_MESSAGE_BYTES */
  maxMessageBytes?: number;
}

interface Oversized {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

/**
 * Newline-delimited JSON-RPC over a pair of streams, where a message over `maxMessageBytes`
 * ends only that message, never the session. The SDK's own stdio transport closes itself on
 * one (and `rlm mcp` then exits): here a request too large to read is answered with a JSON-RPC
 * error naming the limit and its id, an answer too large to read fails the request it answers
 * (a sampled `llm_query`), and bytes past the limit are dropped as they arrive, never held.
 * Messages we would send over the limit are refused the same way, since the client could not
 * read them. The end of the input closes the transport.
 */
export class BoundedStdioTransport implements Transport {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #oversized: Oversized | null = null;
  #started = false;
  #closed = false;

  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  constructor(
    input: Readable,
    output: Writable,
    { maxMessageBytes = DEFAULT_STDIO_MAX_MESSAGE_BYTES }: BoundedStdioTransportOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#maxBytes = maxMessageBytes;
  }

  /** The largest message read or written, in bytes. */
  get maxMessageBytes(): number {
    return this.#maxBytes;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
    this.#input.on('end', this.#onEnd);
    this.#output.on('error', this.#onOutputError);
  }

  readonly #onError = (error: Error) => {
    this.onerror?.(error);
  };

  readonly #onEnd = () => {
    void this.close();
  };

  readonly #onOutputError = (error: Error) => {
    // The reader went away (EPIPE): nothing can be answered any more.
    this.onerror?.(error);
    void this.close();
  };

  readonly #onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(10, start);
      const end = newline === -1 ? data.length : newline;
      this.#take(data.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
  };

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    const oversized = this.#oversized;
    if (oversized !== null) {
      oversized.bytes += piece.length;
      oversized.tail = lastBytes(oversized.tail, piece, PEEK_BYTES);
      return;
    }
    if (this.#size + piece.length <= this.#maxBytes) {
      this.#chunks.push(piece);
      this.#size += piece.length;
      return;
    }
    const held = [...this.#chunks, piece];
    this.#oversized = {
      bytes: this.#size + piece.length,
      head: firstBytes(held, PEEK_BYTES),
      tail: lastBytes(this.#chunks.at(-1) ?? Buffer.alloc(0), piece, PEEK_BYTES),
    };
    this.#chunks = [];
    this.#size = 0;
  }

  #endLine(): void {
    const oversized = this.#oversized;
    if (oversized !== null) {
      this.#oversized = null;
      this.#refuse(oversized);
      return;
    }
    const line = Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, '');
    this.#chunks = [];
    this.#size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  #refuse({ bytes, head, tail }: Oversized): void {
    const { id, isResponse } = peekOversizedMessage(head.toString('utf8'), tail.toString('utf8'));
    const limit = `${this.#maxBytes} bytes (${mebibytes(this.#maxBytes)})`;
    const data = { bytes, maxMessageBytes: this.#maxBytes };
    if (isResponse) {
      const message = `The client's answer${id === undefined ? '' : ` to request ${JSON.stringify(id)}`} was ${bytes} bytes, over this server's stdio limit of ${limit} per message; it was dropped.`;
      this.onerror?.(this.#tooLarge(message));
      // The request it answered fails now instead of waiting for an answer that was dropped.
      if (id !== undefined) {
        this.onmessage?.({
          jsonrpc: '2.0',
          id,
          error: { code: ErrorCode.InvalidRequest, message, data },
        });
      }
      return;
    }
    const message = `The message${id === undefined ? '' : ` (request ${JSON.stringify(id)})`} was ${bytes} bytes, over this server's stdio limit of ${limit} per message; it was dropped. Load large contexts by path (context_load's paths) rather than as inline text.`;
    this.onerror?.(this.#tooLarge(message));
    void this.#write({
      jsonrpc: '2.0',
      ...(id === undefined ? {} : { id }),
      error: { code: ErrorCode.InvalidRequest, message, data },
    } as JSONRPCMessage);
  }

  #tooLarge(message: string): RlmError {
    return new RlmError({
      code: 'server.payload_too_large',
      message,
      details: { what: 'stdio message', limitBytes: this.#maxBytes },
    });
  }

  #write(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#closed || this.#output.destroyed) return resolve();
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = JSON.stringify(message);
    const bytes = Buffer.byteLength(line);
    if (bytes <= this.#maxBytes) return this.#write(message);
    const limit = `${this.#maxBytes} bytes (${mebibytes(this.#maxBytes)})`;
    if ('id' in message && 'result' in message) {
      // A result the client could not read: it gets an error for its request instead.
      const text = `The result was ${bytes} bytes, over the stdio limit of ${limit} per message; ask for less at once.`;
      this.onerror?.(this.#tooLarge(text));
      return this.#write({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: ErrorCode.InternalError,
          message: text,
          data: { bytes, maxMessageBytes: this.#maxBytes },
        },
      });
    }
    // A request (a sampled prompt) or a notification: the caller hears why it was not sent.
    throw this.#tooLarge(
      `The message${'method' in message ? ` ${message.method}` : ''} would be ${bytes} bytes, over the stdio limit of ${limit} per message; it was not sent.`,
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    this.#input.off('end', this.#onEnd);
    this.#output.off('error', this.#onOutputError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#chunks = [];
    this.#oversized = null;
    this.onclose?.();
  }
}
