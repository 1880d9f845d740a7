import { z } from 'zod';
import { parseInput } from './parse-input.js';

/**
 * Who executes a run, and until when: a process claims a run, renews the claim while it works,
 * and releases it when done. A claim that is not renewed lapses at `expiresAt`, and another
 * process may then claim the run; `epoch` grows with every claim, so a lease names one holding
 * of the run and a holder whose lease lapsed can never write as if it still had it (see
 * `RunStore.fenced`). Times come from the store's clock (`now`), epoch milliseconds.
 */
export const runLeaseSchema = z.object({
  runId: z.string().min(1),
  holder: z.string().min(1),
  epoch: z.number().int().positive(),
  expiresAt: z.number(),
});
export type RunLease = z.infer<typeof runLeaseSchema>;

/** How to claim a run. */
export const claimRunOptionsSchema = z.object({
  /** Names the claiming process (a replica id); shown to the others. */
  holder: z.string().trim().min(1),
  /** How long the claim lasts unless renewed. */
  leaseMs: z.number().int().positive(),
});
export type ClaimRunOptions = z.input<typeof claimRunOptionsSchema>;

const leaseMsSchema = z.object({ leaseMs: z.number().int().positive() });

/**
 * Statements in the backend's own SQL (Postgres: `$1` placeholders; SQLite: `?`), run inside
 * another operation's transaction. The shape is the one job queues such as pg-boss accept as
 * their `db`, so a job can be sent in the same transaction as the run it names.
 */
export interface TransactionSql {
  executeSql(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options of `createRun` beyond the run itself. */
export interface CreateRunOptions {
  /**
   * Runs in the transaction that inserts the run, after the insert: whatever it writes commits
   * with the run, and if it throws nothing is stored and `createRun` rejects with its error.
   * SQL backends only (the memory backend rejects it with `config.invalid`).
   */
  inTransaction?: (sql: TransactionSql) => Promise<void>;
}

/** @throws RlmError `protocol.invalid_message` naming the bad field */
export function parseClaimOptions(
  options: ClaimRunOptions,
): z.output<typeof claimRunOptionsSchema> {
  return parseInput(claimRunOptionsSchema, options, 'claim options');
}

/** @throws RlmError `protocol.invalid_message` naming the bad field */
export function parseLease(lease: RunLease): RunLease {
  return parseInput(runLeaseSchema, lease, 'lease');
}

/** @throws RlmError `protocol.invalid_message` naming the bad field */
export function parseLeaseMs(options: { leaseMs: number }): number {
  return parseInput(leaseMsSchema, options, 'lease options').leaseMs;
}
