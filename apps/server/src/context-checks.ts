import { createHash, randomBytes } from 'node:crypto';
import { type JsonValue, RlmError } from '@rlm/protocol';
import { contextTooLarge } from './parse-context-json.js';

/**
 * What every context store (files on one server, rows in a cluster's Postgres) checks the same
 * way, so an id, a size limit or a missing context gets the same answer from either.
 */
const CONTEXT_ID_PATTERN = /^ctx_[0-9a-f]{24}$/;

/** A fresh context id, `ctx_` and 24 hex digits. */
export function newContextId(): string {
  return `ctx_${randomBytes(12).toString('hex')}`;
}

/** Whether `id` has the shape of a context id (anything else names no context). */
export function isContextId(id: string): boolean {
  return CONTEXT_ID_PATTERN.test(id);
}

/** The error for a context id that names no stored context. */
export function contextNotFound(id: string): RlmError<'server.not_found'> {
  return new RlmError({
    code: 'server.not_found',
    message: `No context with id ${id}`,
    details: { resource: 'context', id },
  });
}

/** Counts and hashes an upload chunk by chunk, stopping it at the limit. */
export interface ContextMeter {
  /** @throws RlmError `server.payload_too_large` once the bytes so far pass the limit */
  add(chunk: Uint8Array): void;
  readonly bytes: number;
  /** The SHA-256 of everything added, in hex; call once, at the end. */
  sha256(): string;
}

export function meterContext(limitBytes: number): ContextMeter {
  const hash = createHash('sha256');
  let bytes = 0;
  return {
    add(chunk) {
      bytes += chunk.byteLength;
      if (bytes > limitBytes) throw contextTooLarge(limitBytes);
      hash.update(chunk);
    },
    get bytes() {
      return bytes;
    },
    sha256: () => hash.digest('hex'),
  };
}

type SaveJson<TMeta> = (
  body: Iterable<Uint8Array>,
  options: { owner: string; format: 'json'; limitBytes: number; pending: boolean },
) => Promise<TMeta>;

/** Saves an inline request context through a store's `save`, as JSON with no size limit. */
export function saveContextValue<TMeta>(
  save: SaveJson<TMeta>,
  value: JsonValue,
  { owner, pending = false }: { owner: string; pending?: boolean },
): Promise<TMeta> {
  const bytes = Buffer.from(JSON.stringify(value), 'utf8');
  return save([bytes], { owner, format: 'json', limitBytes: Number.POSITIVE_INFINITY, pending });
}
