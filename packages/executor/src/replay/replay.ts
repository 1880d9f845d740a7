import {
  type ErrorCode,
  type JsonValue,
  type LanguageModel,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
  type TrajectoryRecord,
} from '@rlm/protocol';
import type { TrajectorySink } from '@rlm/trace';
import {
  findTrajectoryHeader,
  type RecordedExchange,
  readTrajectory,
  recordedExchanges,
  recordedText,
  trajectoryEvents,
  trajectoryReplLanguage,
} from '@rlm/trace';
import { parseRLMConfig, type RLMConfig } from '../config/rlm-config.js';
import type { ToolDefinition } from '../config/tool-definition.js';
import { runTree } from '../create-rlm.js';
import type { RunEventHandler } from '../run/event-bus.js';
import type { ModelCall, ModelResponder } from '../run/run-tree.js';
import { contextHash } from '../trajectory/context-fingerprint.js';
import { comparableEvents } from './replay-events.js';

/** Options of `replay`. */
export interface ReplayOptions {
  /** The recorded run's context (trajectories never store it); checked against the recorded hash. */
  context: JsonValue;
  /** The recorded run's payloads after the first, when it had several; each is checked too. */
  contexts?: readonly JsonValue[] | undefined;
  /** The recorded run's tools, when it used any (their results are not recorded). */
  tools?: Record<string, ToolDefinition>;
  /** Drivers given as objects (the trajectory keeps only their names). */
  drivers?: RLMConfig['drivers'];
  /** Where sandboxes run. @default the recorded isolation */
  isolation?: 'worker' | 'inline';
  trajectory?: TrajectorySink;
  onEvent?: RunEventHandler;
  signal?: AbortSignal;
}

/** What a successful replay produced. */
export interface ReplayResult {
  result: RLMChatCompletion;
  events: RunEvent[];
}

function divergence(
  step: number,
  { expected, actual }: { expected: string; actual: string },
): RlmError {
  return new RlmError({
    code: 'executor.replay_divergence',
    message: `Replay diverged at step ${step}: expected ${expected.slice(0, 300)}, got ${actual.slice(0, 300)}`,
    details: { step, expected, actual },
  });
}

/** A stand-in for a recorded model: replay answers its calls from the recording. */
function recordedModel(id: string, contextWindow?: number): LanguageModel {
  return {
    id,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    complete: () => Promise.reject(new Error(`replay: model ${id} is served from the recording`)),
  };
}

function requestMismatch(
  call: ModelCall,
  recorded: RecordedExchange,
): { expected: string; actual: string } | null {
  const live = call.request.messages.map((message) => ({
    role: message.role,
    content: recordedText(message.content),
  }));
  const liveSystem =
    call.request.system === undefined ? undefined : recordedText(call.request.system);
  if (liveSystem !== recorded.system) {
    return {
      expected: `system prompt ${recorded.system ?? '(none)'}`,
      actual: `system prompt ${liveSystem ?? '(none)'}`,
    };
  }
  for (let index = 0; index < Math.max(live.length, recorded.messages.length); index++) {
    const a = recorded.messages[index];
    const b = live[index];
    if (a?.role !== b?.role || a?.content !== b?.content) {
      return {
        expected: `message ${index} of call ${call.callId}: ${JSON.stringify(a ?? null)}`,
        actual: `message ${index} of call ${call.callId}: ${JSON.stringify(b ?? null)}`,
      };
    }
  }
  return null;
}

/** The recorded exchanges by call id (a resumed run's calls keep their ids across the resume). */
function exchangesByCall(records: readonly TrajectoryRecord[]): Map<string, RecordedExchange> {
  return new Map(recordedExchanges(records).map((exchange) => [exchange.callId, exchange]));
}

function responder(
  exchanges: Map<string, RecordedExchange>,
  onDivergence: (error: RlmError) => void,
): ModelResponder {
  return async (call) => {
    const recorded = exchanges.get(call.callId);
    if (recorded === undefined) {
      const error = divergence(exchanges.size, {
        expected: 'no further model call',
        actual: `model call ${call.callId}`,
      });
      onDivergence(error);
      throw error;
    }
    const mismatch = requestMismatch(call, recorded);
    if (mismatch !== null) {
      const error = divergence(recorded.index, mismatch);
      onDivergence(error);
      throw error;
    }
    if (recorded.response === null) {
      const info = recorded.error ?? { code: 'unknown', message: 'recorded failure' };
      throw new RlmError({
        code: info.code as ErrorCode,
        message: info.message,
        details: {} as never,
      });
    }
    return recorded.response;
  };
}

function recordedConfig(records: readonly TrajectoryRecord[], options: ReplayOptions): RLMConfig {
  const header = findTrajectoryHeader(records);
  if (header === undefined) {
    throw divergence(0, { expected: 'a trajectory header', actual: 'none' });
  }
  const config = header.config as Record<string, never>;
  const ids = [
    config['model'],
    config['subModel'],
    ...((config['models'] as string[] | undefined) ?? []),
  ];
  const [, subModel, ...models] = ids.map((id) => recordedModel(String(id)));
  // Compaction depends on the root model's window, which the header keeps when it was on.
  const model = recordedModel(String(ids[0] ?? 'unknown'), config['contextWindow']);
  return {
    model,
    subModel,
    models,
    maxDepth: config['maxDepth'],
    maxIterations: config['maxIterations'],
    iterationsForDepth: config['iterationsForDepth'],
    promptMode: config['promptMode'],
    systemPromptPrefix: config['systemPromptPrefix'],
    drivers: options.drivers ?? config['drivers'],
    tools: options.tools ?? {},
    budget: config['budget'],
    limits: config['limits'],
    maxConcurrency: config['maxConcurrency'],
    firstTurnGuard: config['firstTurnGuard'],
    codeLanguages: config['codeLanguages'],
    isolation: options.isolation ?? config['isolation'],
    repl: trajectoryReplLanguage(records),
    ...(config['contextHelpers'] === false ? { contextHelpers: false } : {}),
    dispatcher: config['dispatcher'],
    ...(config['dispatch'] === undefined ? {} : { dispatch: recordedDispatch(config['dispatch']) }),
    confidenceThreshold: config['confidenceThreshold'],
    compaction: config['compaction'],
    ...(options.trajectory === undefined ? {} : { trajectory: options.trajectory }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
  };
}

/** Recorded dispatch options, the task model (kept by its id) as a replayed model. */
function recordedDispatch(dispatch: Record<string, JsonValue>): RLMConfig['dispatch'] {
  const { model, ...rest } = dispatch;
  return typeof model === 'string' ? { ...rest, model: recordedModel(model) } : rest;
}

/** The JSON Schema of a recorded typed answer: replay checks answers against it and shows it as recorded. */
function recordedOutput(
  records: readonly TrajectoryRecord[],
): Record<string, JsonValue> | undefined {
  const output = findTrajectoryHeader(records)?.config['output'];
  return typeof output === 'object' && output !== null && !Array.isArray(output)
    ? output
    : undefined;
}

function checkContext(
  events: readonly RunEvent[],
  payloads: readonly [JsonValue, ...JsonValue[]],
): void {
  const start = events.find((event) => event.type === 'run-start' && event.depth === 0);
  if (start?.type !== 'run-start') return;
  // Every payload must match, and their number too (a missing or extra payload diverges).
  for (let index = 0; index < Math.max(start.context.length, payloads.length); index++) {
    const expected = start.context[index]?.hash ?? 'none';
    const payload = payloads[index];
    const actual = payload === undefined ? 'none' : contextHash(payload);
    if (expected !== actual) {
      const name = index === 0 ? 'context' : `context_${index}`;
      throw divergence(0, { expected: `${name} ${expected}`, actual: `${name} ${actual}` });
    }
  }
}

function compareEvents(recorded: readonly RunEvent[], live: readonly RunEvent[]): void {
  const expected = comparableEvents(recorded);
  const actual = comparableEvents(live);
  for (let index = 0; index < Math.max(expected.length, actual.length); index++) {
    const a = expected[index];
    const b = actual[index];
    if (a?.text !== b?.text) {
      throw divergence(a?.position ?? recorded.length, {
        expected: a?.text ?? 'end of run',
        actual: b?.text ?? 'end of run',
      });
    }
  }
}

/**
 * Re-runs a recorded run offline: model responses come from the recording, code runs for real
 * in fresh sandboxes. Succeeds only when the replay asks the same model calls and produces the
 * same events (ignoring timestamps and durations) and so the same answer.
 *
 * @throws RlmError `executor.replay_divergence` naming the first step (event or model call index)
 *   that differs; `protocol.invalid_message` for a malformed trajectory file
 * @example
 * const { result } = await replay(result.trajectoryPath, { context });
 */
export async function replay(
  trajectory: string | readonly TrajectoryRecord[],
  options: ReplayOptions,
): Promise<ReplayResult> {
  const contexts = options.contexts ?? [];
  // Placeholders only stand where the context given is not the recorded one, which
  // `checkContext` refuses next with the divergence it names.
  const records =
    typeof trajectory === 'string'
      ? await readTrajectory(trajectory, {
          payloads: [options.context, ...contexts],
          missingContext: 'placeholder',
        })
      : trajectory;
  const recordedEvents = trajectoryEvents(records);
  checkContext(recordedEvents, [options.context, ...contexts]);
  const header = findTrajectoryHeader(records);
  const root = recordedEvents.find((event) => event.type === 'run-start' && event.depth === 0);
  const query = root?.type === 'run-start' && root.query !== '' ? root.query : undefined;
  let diverged: RlmError | undefined;
  const controller = new AbortController();
  const signal =
    options.signal === undefined
      ? controller.signal
      : AbortSignal.any([options.signal, controller.signal]);
  const events: RunEvent[] = [];
  const output = recordedOutput(records);
  const result = await runTree(parseRLMConfig(recordedConfig(records, options)), {
    context: options.context,
    options: { query, signal, ...(contexts.length === 0 ? {} : { contexts }) },
    hooks: {
      rootRunId: header?.runId,
      ...(output === undefined ? {} : { outputJsonSchema: output }),
      listener: (event) => {
        events.push(event);
      },
      respond: responder(exchangesByCall(records), (error) => {
        diverged ??= error;
        controller.abort(error);
      }),
    },
  });
  if (diverged !== undefined) throw diverged;
  compareEvents(recordedEvents, events);
  return { result, events };
}
