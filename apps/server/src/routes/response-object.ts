import { z } from 'zod';
import { apiRunStatusSchema } from '../api-schemas.js';
import type { RunOutcome } from '../run-outcome.js';
import { replyText, runTokens } from './openai-run-replies.js';
import type { ResponsesRequest } from './responses-request.js';

/** What every Response object of one request shares. */
export interface ResponseIdentity {
  runId: string;
  /** Epoch seconds. */
  createdAt: number;
  request: ResponsesRequest;
}

export const responseId = (runId: string) => `resp_${runId}`;
export const messageItemId = (runId: string) => `msg_${runId}`;
export const reasoningItemId = (runId: string) => `rs_${runId}`;

/** The assistant message carrying the answer as one `output_text` part. */
export function answerMessage(runId: string, text: string, status: 'in_progress' | 'completed') {
  return {
    type: 'message',
    id: messageItemId(runId),
    status,
    role: 'assistant',
    content: status === 'in_progress' ? [] : [outputText(text)],
  };
}

export function outputText(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** The reasoning item a streamed response reports the run's progress in. */
export function progressItem(runId: string, text: string, status: 'in_progress' | 'completed') {
  return {
    type: 'reasoning',
    id: reasoningItemId(runId),
    status,
    summary: status === 'in_progress' ? [] : [{ type: 'summary_text', text }],
  };
}

/**
 * A Response object: `in_progress` with no output while the run works, `completed` (the run
 * answered) or `incomplete` (it stopped at a limit without an answer) with its output and usage,
 * or `failed` with an error. `rlm` is our extension, as on chat completions.
 */
export function responseObject(
  { runId, createdAt, request }: ResponseIdentity,
  end?: {
    outcome: RunOutcome;
    output: readonly object[];
    failure?: { message: string };
  },
) {
  const format = request.text?.format ?? { type: 'text' };
  const status = responseStatus(end);
  const tokens = end === undefined ? undefined : runTokens(end.outcome);
  return {
    id: responseId(runId),
    object: 'response',
    created_at: createdAt,
    status,
    ...(status === 'completed' ? { completed_at: Math.floor(Date.now() / 1000) } : {}),
    error:
      end?.failure === undefined ? null : { code: 'server_error', message: end.failure.message },
    // The nearest of OpenAI's reasons: the run used up a budget (turns, tokens, time) first.
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: null,
    model: request.model,
    output: end?.output ?? [],
    parallel_tool_calls: false,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: tokens === undefined ? null : responseUsage(tokens),
    metadata: {},
    ...(end === undefined
      ? {}
      : {
          rlm: {
            runId,
            status: end.outcome.status,
            iterations: end.outcome.iterations,
            costUsd: tokens?.costUsd ?? 0,
            partialAnswer: end.outcome.partialAnswer,
          },
        }),
  };
}

function responseStatus(
  end: { outcome: RunOutcome; failure?: unknown } | undefined,
): 'in_progress' | 'completed' | 'incomplete' | 'failed' {
  if (end === undefined) return 'in_progress';
  if (end.failure !== undefined) return 'failed';
  return end.outcome.status === 'completed' ? 'completed' : 'incomplete';
}

function responseUsage(tokens: ReturnType<typeof runTokens>) {
  return {
    input_tokens: tokens.input,
    input_tokens_details: { cached_tokens: tokens.cached },
    output_tokens: tokens.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: tokens.input + tokens.output,
  };
}

/** The non-streamed reply's output: the answer message (empty text when the run found none). */
export function finalOutput(runId: string, outcome: RunOutcome): object[] {
  return [answerMessage(runId, replyText(outcome), 'completed')];
}

const outputTextSchema = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
});

/** The non-streamed Response object this server returns (plus `rlm`), for `/openapi.json`. */
export const responseViewSchema = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'incomplete']),
  error: z.null(),
  incomplete_details: z.object({ reason: z.literal('max_output_tokens') }).nullable(),
  model: z.string(),
  output: z.array(
    z.object({
      type: z.literal('message'),
      id: z.string(),
      status: z.literal('completed'),
      role: z.literal('assistant'),
      content: z.array(outputTextSchema),
    }),
  ),
  usage: z.object({
    input_tokens: z.number().int(),
    input_tokens_details: z.object({ cached_tokens: z.number().int() }),
    output_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  rlm: z.object({
    runId: z.string(),
    status: apiRunStatusSchema,
    iterations: z.number().int(),
    costUsd: z.number(),
    /** The last response of a run that ended without an answer (not the assistant's reply). */
    partialAnswer: z.string().nullable(),
  }),
});
