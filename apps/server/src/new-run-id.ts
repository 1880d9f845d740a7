import { randomBytes } from 'node:crypto';

/**
 * A fresh run id. Callers that hand the run something needing its id before it starts (an agent
 * turn's REPL tool records it with every self-edit) name the run themselves with this.
 */
export function newRunId(): string {
  return `run_${randomBytes(10).toString('hex')}`;
}
