import { parseSchema } from '@rlm/protocol';
import { z } from 'zod';
import { PROPOSAL_STATUSES, type ProposalStatus } from './prompt-layer-store.js';

/** The longest rejection reason kept, in characters. */
export const MAX_REJECTION_REASON_CHARS = 2_000;

const proposalIdSchema = z.number().int().positive();
const reasonSchema = z.string().max(MAX_REJECTION_REASON_CHARS).optional();
const statusSchema = z.enum(PROPOSAL_STATUSES).optional();

/**
 * Checks a proposal id (a positive integer).
 * @throws RlmError `protocol.invalid_message`
 */
export function parseProposalId(value: unknown): number {
  return parseSchema(proposalIdSchema, value, { what: 'proposal id' });
}

/**
 * Checks a rejection reason (optional, at most `MAX_REJECTION_REASON_CHARS` characters).
 * @throws RlmError `protocol.invalid_message`
 */
export function parseRejectionReason(value: unknown): string | null {
  return parseSchema(reasonSchema, value, { what: 'rejection reason' }) ?? null;
}

/**
 * Checks the status filter of `proposals()`.
 * @throws RlmError `protocol.invalid_message`
 */
export function parseProposalStatus(value: unknown): ProposalStatus | undefined {
  return parseSchema(statusSchema, value, { what: 'proposal status' });
}
