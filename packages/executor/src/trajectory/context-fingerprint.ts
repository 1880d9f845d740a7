import { createHash } from 'node:crypto';
import { type ContextInfo, type JsonValue, type QueryMetadata, queryMetadata } from '@rlm/protocol';

const TYPE_NAMES = { string: 'string', array: 'array', object: 'object' } as const;

/** A short SHA-256 of a payload: strings hashed as-is, anything else as its JSON text. */
export function contextHash(payload: JsonValue): string {
  const hash = createHash('sha256');
  hash.update(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return `sha256:${hash.digest('hex').slice(0, 16)}`;
}

/** Describes a payload by type, chunk lengths and hash, so trajectories never copy it. */
export function contextInfo(
  payload: JsonValue,
  metadata: QueryMetadata = queryMetadata(payload),
  hash: string = contextHash(payload),
): ContextInfo {
  return {
    type: TYPE_NAMES[metadata.contextType],
    lengths: metadata.contextLengths,
    totalLength: metadata.contextTotalLength,
    hash,
  };
}

/**
 * The hash of a run's payloads: the first payload's own hash when it is the only one (so
 * single-context checkpoints are unchanged), else every payload's hash joined with `+`, so a
 * different extra payload (or a different number of them) gives a different hash.
 */
export function contextsHash(context: JsonValue, contexts: readonly JsonValue[] = []): string {
  return joinContextHashes([context, ...contexts].map(contextHash));
}

/** `contextsHash` from payload hashes already computed (a run hashes each payload once). */
export function joinContextHashes(hashes: readonly string[]): string {
  return hashes.join('+');
}

/** Each payload's `contextHash`, computed on the first call and shared by every later one. */
export function lazyContextHashes(payloads: readonly JsonValue[]): () => readonly string[] {
  let hashes: readonly string[] | undefined;
  return () => {
    hashes ??= payloads.map(contextHash);
    return hashes;
  };
}
