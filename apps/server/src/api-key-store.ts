import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

export const apiKeyRoleSchema = z.enum(['admin', 'user']);
export type ApiKeyRole = z.infer<typeof apiKeyRoleSchema>;

/** A stored key: only the SHA-256 of the token is kept, never the token. */
export const apiKeyRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  role: apiKeyRoleSchema,
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof apiKeyRecordSchema>;

/** What a request is authenticated as. */
export interface Principal {
  keyId: string;
  name: string;
  role: ApiKeyRole;
}

/** Persistence for API keys; both implementations look keys up by hash. */
export interface ApiKeyStore {
  /** The record whose hash matches, revoked or not. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  add(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; returns false when no such key exists. */
  revoke(id: string, at: Date): Promise<boolean>;
}

/** SHA-256 hex of a token: what is stored and compared. */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token and record for a new key; the token is shown once and never stored. */
export interface NewApiKey {
  token: string;
  record: ApiKeyRecord;
}

/** Generates a key (`rlm_` + 32 random bytes, base64url) and its storable record. */
export function generateApiKey({
  name,
  role,
  now = new Date(),
}: {
  name: string;
  role: ApiKeyRole;
  now?: Date;
}): NewApiKey {
  const token = `rlm_${randomBytes(32).toString('base64url')}`;
  const id = `key_${randomBytes(6).toString('hex')}`;
  return {
    token,
    record: {
      id,
      name,
      role,
      hash: hashApiKey(token),
      createdAt: now.toISOString(),
      revokedAt: null,
    },
  };
}
