import type { LanguageModel, ModelRequest, ModelResponse } from '@rlm/protocol';
import type { TrajectoryRecorder } from '@rlm/trace';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import type { EventBus } from './event-bus.js';
import type { RunTracing } from './run-tracing.js';

/** One model call as the tree's responder sees it. */
export interface ModelCall {
  model: LanguageModel;
  request: ModelRequest;
  runId: string;
  callId: string;
}

/** Answers model calls: the live model normally, the recording during replay. */
export type ModelResponder = (call: ModelCall) => Promise<ModelResponse>;

/** The live responder: asks the model itself. */
export const liveResponder: ModelResponder = ({ model, request }) => model.complete(request);

/**
 * What every invocation of one run tree shares: configuration, the event bus, the trajectory,
 * the clock and how model calls are answered. One object per `completion()` call, passed down
 * explicitly — there is no module state, so concurrent runs never see each other.
 */
export interface RunTree {
  readonly config: ResolvedRLMConfig;
  readonly rootRunId: string;
  readonly now: () => number;
  readonly bus: EventBus;
  readonly recorder: TrajectoryRecorder | null;
  readonly respond: ModelResponder;
  /** The tree's OpenTelemetry spans (no-ops unless a tracer records). */
  readonly tracing: RunTracing;
}
