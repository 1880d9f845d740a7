import type { CreateRunInput, RunLease, RunRecord } from '@rlm/memory';
import type { RunMeta } from '../run-meta.js';
import type { ActiveRun } from './active-run.js';

/** A run being admitted: what the coordinator checks and records with it. */
export interface RunAdmission {
  runId: string;
  keyId: string;
  kind: RunMeta['kind'];
  /** A context stored for this run only, made visible with the run. */
  pendingContextId: string | undefined;
}

/**
 * Where runs are admitted, queued and executed: the part of the run lifecycle that differs
 * between one server on its own (`createInProcessCoordinator`) and replicas sharing Postgres
 * (`createPostgresCoordinator`: admission in the run's transaction, the pg-boss queue, leases and
 * take-overs). The lifecycle calls it at each step; an in-process coordinator does little.
 */
export interface Coordinator {
  /**
   * Limits checked before anything is stored (in a cluster the database counts every replica's
   * runs when the run is stored instead).
   * @throws RlmError `server.rate_limited`
   */
  checkLimits(keyId: string): void;
  /** Stores the new run, admitted with it (in a cluster: in the run's transaction). */
  createRun(run: CreateRunInput, admission: RunAdmission): Promise<RunRecord>;
  /** Whether a new run of this kind waits on a queue shared by replicas (any of them executes it). */
  queues(kind: RunMeta['kind']): boolean;
  /** A run queued for any replica was stored: look at the shared queue now. */
  queued(): void;
  /**
   * The lease under which a new run that executes here does (in a cluster: claimed at once);
   * undefined in one process.
   */
  claimNew(runId: string): Promise<RunLease | undefined>;
  /** Tells the other replicas that the run's status changed (its streams here are woken already). */
  announce(runId: string): void;
  /** The run no longer executes here: its lease, if any, is released (unless it was lost). */
  released(run: ActiveRun): void;
  /** A run was given back (a shutdown suspended it): another replica may take it at once. */
  gaveUp(): Promise<void>;
  /** A slot freed up here. */
  slotFree(): void;
  /** Start-up: takes up the runs found unfinished, or leaves them to the cluster's take-overs. */
  recover(): Promise<{ requeued: string[]; interrupted: string[] }>;
  /** Cancels a run that does not execute here; false when there is none to cancel. */
  cancelElsewhere(runId: string): Promise<boolean>;
  /** A shutdown began: take no more runs. */
  stopTaking(): void;
  /** Stops the coordinator's background work, once no run is left here. */
  close(): Promise<void>;
}
