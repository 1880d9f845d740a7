import { RlmError } from '@rlm/protocol';
import type { RunLease } from './run-lease.js';

/** The typed error for a write through a lease that lapsed, was released or was taken over. */
export function leaseLost(lease: RunLease): RlmError<'memory.lease_lost'> {
  return new RlmError({
    code: 'memory.lease_lost',
    message: `The lease of ${lease.holder} (epoch ${lease.epoch}) on run ${JSON.stringify(lease.runId)} is no longer held; nothing was written`,
    details: { runId: lease.runId, holder: lease.holder },
  });
}
