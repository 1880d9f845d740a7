import type { RunStore } from '@rlm/memory';
import type { JsonValue, RLMChatCompletion, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import type { RunMeta } from './run-meta.js';
import type { ModelProfile } from './server-config.js';

/** The budgets a run gets after the server capped the request at its maxima (every one set). */
export type EffectiveBudget = RunMeta['budget'];

/** A host function the engine exposes to the model's REPL (agents use one to edit prompt layers). */
export interface EngineTool {
  description: string;
  /** Receives the JSON arguments of the REPL call; returns a JSON-safe value. */
  call(args: JsonValue[], options: { signal: AbortSignal }): Promise<JsonValue>;
}

/** Everything one run needs; the engine owns the loop, the server owns persistence. */
export interface RunEngineInput {
  runId: string;
  query: string;
  context: JsonValue;
  profileName: string;
  profile: ModelProfile;
  budget: EffectiveBudget;
  signal: AbortSignal;
  /** Called for every event, in order; the server persists it before anyone sees it. */
  onEvent: (event: RunEvent) => void;
  /** Called for every trajectory record (model exchanges included). */
  onTrajectory: (record: TrajectoryRecord) => void;
  /**
   * Put before the RLM's own system prompt on root-model calls (agents pass their layered
   * prompt); the trajectory records the combined prompt, as sent.
   */
  systemPrompt?: string;
  /**
   * Where the engine checkpoints the root after each completed turn, under `runId` (a view of the
   * server's store: checkpoints are saved and reported, run status stays the server's to write).
   * Given only for runs a restart can resume.
   */
  runStore?: RunStore;
  /**
   * A restart: continue from the latest checkpoint in `runStore` (earlier turns are not run
   * again). Without a usable checkpoint the engine starts over, with `recorded` as the replay.
   * Either way the run goes on under its id: it emits `run-resume`, no second `run-start`, and no
   * second trajectory header.
   */
  resume?: boolean;
  /**
   * The trajectory of an earlier attempt of this run (a restart): its recorded model responses
   * answer identical requests again instead of the live model when the run starts over. Given
   * for every restart, so it also marks one.
   */
  recorded?: readonly TrajectoryRecord[];
  /** REPL functions by name. */
  tools?: Readonly<Record<string, EngineTool>>;
  /**
   * A JSON Schema the answer must match: the run goes on until the model's final answer does, and
   * the completion's `answer` is the answer's JSON text.
   */
  outputSchema?: Readonly<Record<string, JsonValue>>;
  /** A caller's escalation ladder (model ids) and error count, in place of the profile's. */
  escalation?: RunMeta['escalation'];
}

/**
 * The port the run manager drives. The production adapter is `createExecutorEngine` over
 * `@rlm/executor`; tests inject the same adapter with scripted models.
 */
export interface RunEngine {
  run(input: RunEngineInput): Promise<RLMChatCompletion>;
}
