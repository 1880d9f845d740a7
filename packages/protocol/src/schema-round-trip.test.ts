import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { replResultSchema } from './repl-result.js';
import { rlmChatCompletionSchema, runStatusSchema } from './rlm-chat-completion.js';
import { limitNameSchema, RUN_EVENT_VERSION, runEventSchema } from './run-event.js';
import { TRAJECTORY_VERSION, trajectoryRecordSchema } from './trajectory-record.js';

// Arbitraries produce values in each schema's output shape; the property is that writing them as
// JSON and parsing them back yields the same value (what trajectories, SSE and stores rely on).

/** Strings with the characters JSON must escape, plus non-ASCII and astral ones. */
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom('a', '\n', '\r', '"', '\\', '\u0000', 'é', '😀', '`') }),
);
const id = fc.string({
  unit: fc.constantFrom('a', 'b', '1', '-', '/', '_'),
  minLength: 1,
  maxLength: 12,
});
const count = fc.nat({ max: 1_000_000 });
const duration = fc.double({ min: 0, max: 1e9, noNaN: true });
const money = fc.double({ min: 0, max: 1e4, noNaN: true });

const modelUsage = fc.record({
  calls: count,
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  costUsd: money,
});
const usageSummary = fc.record({
  models: fc.dictionary(id, modelUsage, { maxKeys: 3, noNullPrototype: true }),
});
const tokenUsage = fc.record({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
});
const blockError = fc.record(
  { name: text, message: text, code: id, line: fc.integer({ min: 1, max: 10_000 }) },
  { requiredKeys: ['name', 'message'] },
);
const subCall = fc.record(
  {
    kind: fc.constantFrom('llm' as const, 'rlm' as const),
    model: id,
    prompt: text,
    promptChars: count,
    response: text,
    ok: fc.boolean(),
    durationMs: duration,
    usage: usageSummary,
    runId: id,
  },
  {
    requiredKeys: [
      'kind',
      'model',
      'prompt',
      'promptChars',
      'response',
      'ok',
      'durationMs',
      'usage',
    ],
  },
);
const replResult = fc.record({
  stdout: text,
  stderr: text,
  locals: fc.dictionary(id, fc.constantFrom('string', 'number', 'function', 'array'), {
    maxKeys: 4,
    noNullPrototype: true,
  }),
  executionTime: duration,
  llmCalls: fc.array(subCall, { maxLength: 2 }),
  finalAnswer: fc.option(text, { nil: null }),
  error: fc.option(blockError, { nil: null }),
  unawaitedCalls: fc.dictionary(id, fc.integer({ min: 1, max: 50 }), {
    maxKeys: 2,
    noNullPrototype: true,
  }),
});
const runStatus = fc.constantFrom(...runStatusSchema.options);
const errorInfo = fc.record({ code: id, message: text });
const completion = fc.record(
  {
    runId: id,
    rootRunId: id,
    parentRunId: fc.option(id, { nil: null }),
    depth: fc.nat({ max: 5 }),
    model: id,
    query: text,
    answer: fc.option(text, { nil: null }),
    status: runStatus,
    partialAnswer: fc.option(text, { nil: null }),
    usage: usageSummary,
    iterations: count,
    executionTime: duration,
    trajectoryPath: fc.option(text, { nil: null }),
    promptVersion: id,
    error: fc.option(errorInfo, { nil: null }),
  },
  {
    requiredKeys: [
      'runId',
      'rootRunId',
      'parentRunId',
      'depth',
      'model',
      'query',
      'answer',
      'status',
      'partialAnswer',
      'usage',
      'iterations',
      'executionTime',
      'trajectoryPath',
      'error',
    ],
  },
);

const eventBase = {
  v: fc.constant(RUN_EVENT_VERSION),
  runId: id,
  parentRunId: fc.option(id, { nil: null }),
  rootRunId: id,
  depth: fc.nat({ max: 5 }),
  at: fc.integer({ min: 0, max: 4_000_000_000_000 }),
};
const runEvent = fc.oneof(
  fc.record({
    ...eventBase,
    type: fc.constant('run-start' as const),
    query: text,
    model: id,
    context: fc.array(
      fc.record(
        {
          type: fc.constantFrom('string' as const, 'array' as const, 'object' as const),
          lengths: fc.array(count, { maxLength: 4 }),
          totalLength: count,
          hash: id,
        },
        { requiredKeys: ['type', 'lengths', 'totalLength'] },
      ),
      { maxLength: 3 },
    ),
    maxIterations: fc.integer({ min: 1, max: 100 }),
    maxDepth: fc.nat({ max: 5 }),
    promptVersion: id,
  }),
  fc.record({
    ...eventBase,
    type: fc.constant('run-resume' as const),
    fromIteration: fc.nat({ max: 50 }),
    model: id,
  }),
  fc.record(
    {
      ...eventBase,
      type: fc.constant('model-call-end' as const),
      callId: id,
      model: id,
      ok: fc.boolean(),
      usage: tokenUsage,
      costUsd: money,
      durationMs: duration,
      stopReason: id,
      requestId: id,
      responseChars: count,
      error: errorInfo,
      usageEstimated: fc.boolean(),
    },
    {
      requiredKeys: [
        'v',
        'runId',
        'parentRunId',
        'rootRunId',
        'depth',
        'at',
        'type',
        'callId',
        'model',
        'ok',
        'durationMs',
      ],
    },
  ),
  fc.record({
    ...eventBase,
    type: fc.constant('block-end' as const),
    iteration: fc.nat({ max: 50 }),
    index: fc.nat({ max: 10 }),
    stdout: text,
    stderr: text,
    executionTime: duration,
    finalAnswer: fc.option(text, { nil: null }),
    error: fc.option(blockError, { nil: null }),
    unawaitedCalls: fc.dictionary(id, fc.integer({ min: 1, max: 50 }), {
      maxKeys: 2,
      noNullPrototype: true,
    }),
  }),
  fc.record({
    ...eventBase,
    type: fc.constant('final-answer' as const),
    answer: text,
    source: fc.constantFrom(
      'code' as const,
      'text' as const,
      'default_answer' as const,
      'set_answer' as const,
    ),
  }),
  fc.record({
    ...eventBase,
    type: fc.constant('limit-hit' as const),
    limit: fc.constantFrom(...limitNameSchema.options),
    used: money,
    max: money,
  }),
  fc.record(
    {
      ...eventBase,
      type: fc.constant('run-end' as const),
      status: runStatus,
      answer: fc.option(text, { nil: null }),
      partialAnswer: fc.option(text, { nil: null }),
      usage: usageSummary,
      iterations: count,
      durationMs: duration,
      error: errorInfo,
    },
    {
      requiredKeys: [
        'v',
        'runId',
        'parentRunId',
        'rootRunId',
        'depth',
        'at',
        'type',
        'status',
        'answer',
        'partialAnswer',
        'usage',
        'iterations',
        'durationMs',
      ],
    },
  ),
);
const chatMessage = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: text,
});
const trajectoryRecord = fc.oneof(
  fc.record({
    kind: fc.constant('header' as const),
    version: fc.constant(TRAJECTORY_VERSION),
    runId: id,
    createdAt: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    // JSON itself turns -0 into 0; normalising first keeps the property about our schema.
    config: fc
      .dictionary(id, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4, noNullPrototype: true })
      .map((config) => JSON.parse(JSON.stringify(config))),
  }),
  fc.record({ kind: fc.constant('event' as const), event: runEvent }),
  fc.record(
    {
      kind: fc.constant('model-exchange' as const),
      runId: id,
      callId: id,
      request: fc.record(
        {
          system: text,
          messages: fc.array(chatMessage, { maxLength: 3 }),
          messagesFrom: fc.nat({ max: 10 }),
        },
        { requiredKeys: ['messages', 'messagesFrom'] },
      ),
      response: fc.option(
        fc.record(
          {
            text,
            usage: tokenUsage,
            stopReason: fc.constantFrom(
              'end_turn' as const,
              'max_tokens' as const,
              'stop_sequence' as const,
              'other' as const,
            ),
            requestId: id,
            model: id,
            costUsd: money,
          },
          { requiredKeys: ['text', 'usage', 'stopReason', 'model'] },
        ),
        { nil: null },
      ),
      error: errorInfo,
    },
    { requiredKeys: ['kind', 'runId', 'callId', 'request', 'response'] },
  ),
);

function expectJsonRoundTrip<TSchema extends z.ZodType>(
  schema: TSchema,
  value: z.output<TSchema>,
): void {
  expect(schema.parse(JSON.parse(JSON.stringify(value)))).toEqual(value);
}

describe('schema JSON round trips', () => {
  it('keeps a REPLResult', () => {
    fc.assert(fc.property(replResult, (value) => expectJsonRoundTrip(replResultSchema, value)));
  });

  it('keeps an RLMChatCompletion', () => {
    fc.assert(
      fc.property(completion, (value) => expectJsonRoundTrip(rlmChatCompletionSchema, value)),
    );
  });

  it('keeps every kind of RunEvent generated', () => {
    fc.assert(fc.property(runEvent, (value) => expectJsonRoundTrip(runEventSchema, value)));
  });

  it('keeps a TrajectoryRecord', () => {
    fc.assert(
      fc.property(trajectoryRecord, (value) => expectJsonRoundTrip(trajectoryRecordSchema, value)),
    );
  });
});

describe('schema defaults', () => {
  it('fills a REPLResult error with null when an older writer left it out', () => {
    const written = {
      stdout: '',
      stderr: '',
      locals: {},
      executionTime: 0,
      llmCalls: [],
      finalAnswer: null,
    };
    expect(replResultSchema.parse(written)).toMatchObject({ error: null, unawaitedCalls: {} });
  });

  it('rejects a RunEvent of another version', () => {
    const event = {
      v: RUN_EVENT_VERSION + 1,
      type: 'error',
      runId: 'r',
      parentRunId: null,
      rootRunId: 'r',
      depth: 0,
      at: 0,
      error: { code: 'x', message: 'y' },
    };
    expect(runEventSchema.safeParse(event).success).toBe(false);
    expect(runEventSchema.safeParse({ ...event, v: RUN_EVENT_VERSION }).success).toBe(true);
  });
});
