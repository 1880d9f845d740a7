import type { RunLease, RunStore } from '@rlm/memory';
import type { RunOutcome } from '../run-outcome.js';
import type { StoppableRun } from '../stop-for-shutdown.js';
import type { SubmitRunInput } from './submit-run-input.js';

/** A run queued or executing in this process. */
export interface ActiveRun extends StoppableRun {
  readonly runId: string;
  input: SubmitRunInput;
  resolve: (outcome: RunOutcome) => void;
  started: boolean;
  /** Set once a queued run is being cancelled, so a second cancel does nothing. */
  cancelled: boolean;
  /** Where the run's writes go: in a cluster, fenced by its lease. */
  store: RunStore;
  /** This replica's claim on the run (cluster only). */
  lease?: RunLease;
  /** Set once the lease is lost: another replica has the run, and nothing more is written here. */
  lostLease?: string;
}
