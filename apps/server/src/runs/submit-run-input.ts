import type { RunRecord } from '@rlm/memory';
import type { JsonValue, TrajectoryRecord } from '@rlm/protocol';
import type { Principal } from '../api-key-store.js';
import type { EffectiveBudget, EngineTool } from '../run-engine.js';
import type { RunMeta } from '../run-meta.js';
import type { RunOutcome } from '../run-outcome.js';

/** What starts a run: the caller, the query, a stored context and the run's settings. */
export interface SubmitRunInput {
  /** The run's id when the caller needs it before the run starts (see `newRunId`). @default a new id */
  runId?: string;
  principal: Principal;
  kind: RunMeta['kind'];
  query: string;
  /** A stored context; or give `inlineContext` and the manager stores it once the run is admitted. */
  contextId?: string;
  /** A context given in the request, stored only after every limit check has passed. */
  inlineContext?: JsonValue;
  profileName: string;
  budget: EffectiveBudget;
  agentId?: string;
  /** A restarted run: the trajectory of its earlier attempt (see `RunEngineInput.recorded`). */
  recorded?: readonly TrajectoryRecord[];
  /** A restarted run with a checkpoint: continue from it (see `RunEngineInput.resume`). */
  resume?: boolean;
  /** Agent turns: the layered system prompt and the REPL tools of this turn. */
  systemPrompt?: string;
  tools?: Readonly<Record<string, EngineTool>>;
  /** The JSON Schema the answer must match (kept in the run's metadata). */
  outputSchema?: Readonly<Record<string, JsonValue>>;
  /** A caller's escalation ladder over the profile's (kept in the run's metadata). */
  escalation?: RunMeta['escalation'];
}

/** A submitted run: its stored record and a promise of how it ends. */
export interface SubmittedRun {
  record: RunRecord;
  /**
   * How the run ends, when it executes in this process. A `run` submitted to a replica waits on
   * the shared queue and may execute on another replica: its `done` never settles (follow its
   * events instead); chat and agent runs always execute where they were submitted.
   */
  done: Promise<RunOutcome>;
}
