import { createHash } from 'node:crypto';

/** `sha256:` and the first 16 hex digits of the SHA-256 of `text` (the executor's context hash). */
export function textHash(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}
