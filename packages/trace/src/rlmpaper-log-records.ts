import type {
  ChatMessage,
  ContextInfo,
  JsonValue,
  RunEvent,
  TrajectoryRecord,
} from '@rlm/protocol';
import type {
  RlmpaperCall,
  RlmpaperIteration,
  RlmpaperLog,
  RlmpaperMetadata,
} from './rlmpaper-log.js';

/** The id given to the log's root run (`-2`, `-3`… for further completions in the same file). */
export const RLMPAPER_RUN_ID = 'rlmpaper';

/** The engine's log does not keep the question as such (only the messages it built from it). */
const NO_QUERY = '(not recorded in the reference-engine log)';

type EventBody = { type: RunEvent['type'] } & Record<string, unknown>;

interface RunScope {
  runId: string;
  parentRunId: string | null;
  rootRunId: string;
  depth: number;
}

interface ExchangeInput {
  callId: string;
  prompt: JsonValue;
  response: string;
  model: string;
}

/** A logged prompt as our request: system messages joined, every other role sent as a user's. */
function requestOf(prompt: JsonValue): { system?: string; messages: ChatMessage[] } {
  if (!Array.isArray(prompt)) return { messages: [{ role: 'user', content: textOf(prompt) }] };
  const system: string[] = [];
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) continue;
    const content = textOf(message['content']);
    if (message['role'] === 'system') system.push(content);
    else messages.push({ role: message['role'] === 'assistant' ? 'assistant' : 'user', content });
  }
  return system.length === 0 ? { messages } : { system: system.join('\n\n'), messages };
}

/** Emits events with the common fields and a clock that only moves forward. */
class EventWriter {
  readonly records: TrajectoryRecord[] = [];
  private now: number;
  private calls = 0;

  constructor(start: number) {
    this.now = start;
  }

  at(ms: number | undefined): void {
    if (ms !== undefined && Number.isFinite(ms) && ms > this.now) this.now = ms;
  }

  advance(ms: number): void {
    this.now += Math.max(0, ms);
  }

  nextCallId(): string {
    this.calls += 1;
    return `call-${this.calls}`;
  }

  /** The turn's request and reply, so readers of exchanges (exports, prompt views) have them. */
  exchange(scope: RunScope, { callId, prompt, response, model }: ExchangeInput): void {
    this.records.push({
      kind: 'model-exchange',
      runId: scope.runId,
      callId,
      request: { ...requestOf(prompt), messagesFrom: 0 },
      response: {
        text: response,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'end_turn',
        model,
      },
    });
  }

  emit(scope: RunScope, body: EventBody): void {
    const event = { v: 1, ...scope, at: this.now, ...body } as unknown as RunEvent;
    this.records.push({ kind: 'event', event });
  }
}

function seconds(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value * 1000 : 0;
}

function textOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The last user message of a logged prompt: what a sub-call was asked. */
function lastUserText(prompt: JsonValue | undefined): string {
  if (!Array.isArray(prompt)) return textOf(prompt);
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message !== null && typeof message === 'object' && !Array.isArray(message)) {
      if (message['role'] === 'user') return textOf(message['content']);
    }
  }
  return '';
}

function messageCount(prompt: JsonValue): number {
  return Array.isArray(prompt) ? prompt.length : 1;
}

function contextInfo(context: JsonValue | undefined): ContextInfo[] {
  if (context === undefined) return [];
  if (typeof context === 'string') {
    return [{ type: 'string', lengths: [context.length], totalLength: context.length }];
  }
  if (Array.isArray(context)) {
    const lengths = context.map((item) => textOf(item).length);
    const totalLength = lengths.reduce((sum, length) => sum + length, 0);
    return [{ type: 'array', lengths, totalLength }];
  }
  const length = JSON.stringify(context).length;
  return [{ type: 'object', lengths: [length], totalLength: length }];
}

function timestampMs(timestamp: string | undefined): number | undefined {
  if (timestamp === undefined) return undefined;
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? undefined : at;
}

/** The last line of a traceback: `ValueError: bad input`. */
function errorOf(stderr: string): { name: string; message: string } | null {
  const last = stderr.trim().split('\n').at(-1)?.trim() ?? '';
  if (last === '') return null;
  const match = /^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)):\s?(.*)$/.exec(last);
  return match === null
    ? { name: 'Error', message: last }
    : { name: match[1] as string, message: match[2] as string };
}

interface ConvertOptions {
  model: string;
  maxIterations: number;
  maxDepth: number;
  context: JsonValue | undefined;
}

interface RunInput {
  scope: RunScope;
  iterations: readonly RlmpaperIteration[];
  options: ConvertOptions & { query: string };
}

function writeRun(writer: EventWriter, { scope, iterations, options }: RunInput): void {
  writer.at(timestampMs(iterations[0]?.timestamp));
  writer.emit(scope, {
    type: 'run-start',
    query: options.query,
    model: options.model,
    context: scope.depth === 0 ? contextInfo(options.context) : [],
    maxIterations: Math.max(1, options.maxIterations, iterations.length),
    maxDepth: options.maxDepth,
    promptVersion: 'rlmpaper',
  });
  let answer: string | null = null;
  let lastResponse: string | null = null;
  let total = 0;
  iterations.forEach((iteration, turn) => {
    const callId = writer.nextCallId();
    writer.emit(scope, { type: 'iteration-start', iteration: turn });
    writer.emit(scope, {
      type: 'model-call-start',
      callId,
      model: options.model,
      purpose: 'root',
      messageCount: messageCount(iteration.prompt),
      promptChars: textOf(iteration.prompt).length,
    });
    writer.emit(scope, {
      type: 'model-call-end',
      callId,
      model: options.model,
      ok: true,
      durationMs: 0,
      responseChars: iteration.response.length,
    });
    writer.exchange(scope, {
      callId,
      prompt: iteration.prompt,
      response: iteration.response,
      model: options.model,
    });
    iteration.code_blocks.forEach((block, index) => {
      writer.emit(scope, { type: 'block-start', iteration: turn, index, code: block.code });
      for (const call of block.result.rlm_calls) writeCall(writer, call, { scope, options });
      writer.advance(seconds(block.result.execution_time));
      writer.emit(scope, {
        type: 'block-end',
        iteration: turn,
        index,
        stdout: block.result.stdout,
        stderr: block.result.stderr,
        executionTime: seconds(block.result.execution_time),
        finalAnswer: block.result.final_answer,
        error: errorOf(block.result.stderr),
        unawaitedCalls: {},
      });
    });
    const durationMs = seconds(iteration.iteration_time);
    total += durationMs;
    if (iteration.response.trim() !== '') lastResponse = iteration.response;
    writer.emit(scope, {
      type: 'iteration-end',
      iteration: turn,
      response: iteration.response,
      finalAnswer: iteration.final_answer,
      durationMs,
    });
    if (iteration.final_answer !== null && answer === null) {
      answer = iteration.final_answer;
      writer.emit(scope, { type: 'final-answer', answer, source: 'text' });
    }
  });
  writer.emit(scope, {
    type: 'run-end',
    status: answer === null ? 'max_iterations' : 'completed',
    answer,
    partialAnswer: answer === null ? lastResponse : null,
    usage: { models: {} },
    iterations: iterations.length,
    durationMs: total,
  });
}

function writeCall(
  writer: EventWriter,
  call: RlmpaperCall,
  { scope: parent, options }: { scope: RunScope; options: ConvertOptions },
): void {
  const callId = writer.nextCallId();
  const children = call.metadata?.iterations;
  const child = children !== undefined && children.length > 0;
  const childRunId = child ? `${parent.runId}.${callId}` : undefined;
  const model = call.root_model ?? options.model;
  const prompt = lastUserText(call.prompt);
  writer.emit(parent, {
    type: 'subcall-start',
    callId,
    kind: child ? 'rlm' : 'llm',
    model,
    promptPreview: prompt,
    ...(childRunId === undefined ? {} : { childRunId }),
  });
  if (childRunId !== undefined && children !== undefined) {
    const scope: RunScope = {
      runId: childRunId,
      parentRunId: parent.runId,
      rootRunId: parent.rootRunId,
      depth: parent.depth + 1,
    };
    writeRun(writer, {
      scope,
      iterations: children,
      options: { ...options, model, query: prompt, context: undefined },
    });
  } else {
    writer.advance(seconds(call.execution_time));
  }
  const failed = typeof call.error === 'string' && call.error !== '';
  writer.emit(parent, {
    type: 'subcall-end',
    callId,
    kind: child ? 'rlm' : 'llm',
    ok: !failed,
    durationMs: seconds(call.execution_time),
    responsePreview: failed ? `Error: ${call.error}` : (call.response ?? ''),
    ...(childRunId === undefined ? {} : { childRunId }),
  });
}

function numberOr(value: number | null | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

function headerConfig(metadata: RlmpaperMetadata | undefined): Record<string, JsonValue> {
  if (metadata === undefined) return { source: 'rlmpaper' };
  const { type: _type, timestamp: _timestamp, ...rest } = metadata;
  const logged = JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>;
  // Under our names too, where our readers (the summary, the rlmpaper export) look for them.
  const ours: Record<string, JsonValue> = {};
  if (typeof metadata.root_model === 'string') ours['model'] = metadata.root_model;
  if (typeof metadata.max_depth === 'number') ours['maxDepth'] = metadata.max_depth;
  if (typeof metadata.max_iterations === 'number') ours['maxIterations'] = metadata.max_iterations;
  return { source: 'rlmpaper', ...logged, ...ours };
}

/**
 * Our trajectory records for a reference-engine log: a header, then for each completion in the
 * file a root run with its turns, code blocks, sub-calls (a child RLM's iterations as a nested
 * run) and final answer, so `TraceTree`, the terminal tree and the HTML view show it as one of
 * ours. Times come from the log's timestamps and durations; what the log does not record reads as
 * empty (token usage) or says so (the query).
 *
 * @example
 * const parsed = safeParseRlmpaperLog(text);
 * if (parsed.ok) for (const event of trajectoryEvents(rlmpaperLogRecords(parsed.value))) tree.apply(event);
 */
export function rlmpaperLogRecords(log: RlmpaperLog): TrajectoryRecord[] {
  const { metadata } = log;
  const createdAt = timestampMs(metadata?.timestamp) ?? timestampMs(log.runs[0]?.[0]?.timestamp);
  const writer = new EventWriter(createdAt ?? 0);
  const options: ConvertOptions = {
    model: metadata?.root_model ?? 'rlmpaper/unknown',
    maxIterations: numberOr(metadata?.max_iterations, 1),
    maxDepth: numberOr(metadata?.max_depth, 1),
    context: log.context,
  };
  log.runs.forEach((iterations, position) => {
    const runId = position === 0 ? RLMPAPER_RUN_ID : `${RLMPAPER_RUN_ID}-${position + 1}`;
    const scope: RunScope = { runId, parentRunId: null, rootRunId: runId, depth: 0 };
    writeRun(writer, { scope, iterations, options: { ...options, query: NO_QUERY } });
  });
  const header: TrajectoryRecord = {
    kind: 'header',
    version: 4,
    runId: RLMPAPER_RUN_ID,
    createdAt: new Date(createdAt ?? 0).toISOString(),
    repl: 'python',
    config: headerConfig(metadata),
  };
  return [header, ...writer.records];
}
