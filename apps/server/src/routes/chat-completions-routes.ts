import { outputFromJsonSchema } from '@rlm/executor';
import { RlmError, totalUsage } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../app-env.js';
import {
  answerSchemaOf,
  type ChatCompletionRequest,
  chatCompletionRequestSchema,
  toRunInput,
} from '../chat-completion-request.js';
import { effectiveBudget } from '../effective-budget.js';
import { guardedSse } from '../guarded-sse.js';
import { ownProfile, profileNames } from '../own-profile.js';
import { payloadTooLarge } from '../payload-too-large.js';
import { readJsonBody } from '../read-json-body.js';
import type { RunOutcome } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';

/**
 * `POST /v1/chat/completions`, OpenAI-compatible: `model` names a configured profile, the last
 * user message is the query, and the answer comes back as the assistant message. With
 * `stream: true` the reply is OpenAI's `data:`-only SSE (role chunk, content, finish, optional
 * usage chunk, `[DONE]`), with comment keep-alives while the RLM works.
 */
export function chatCompletionsRoutes(services: ServerServices): Hono<AppEnv> {
  const { config, runs } = services;
  const app = new Hono<AppEnv>();

  app.post(
    '/',
    bodyLimit({
      maxSize: config.limits.contextBytes,
      onError: payloadTooLarge('request body', config.limits.contextBytes),
    }),
    async (c) => {
      const principal = c.get('principal');
      const body = await readJsonBody(c, chatCompletionRequestSchema, 'chat completion request');
      const profile = ownProfile(config, body.model);
      if (profile === undefined) {
        throw new RlmError({
          code: 'server.not_found',
          message: `The model "${body.model}" does not exist; configured models: ${profileNames(config)}`,
          details: { resource: 'model', id: body.model },
        });
      }
      const { query, context } = toRunInput(body);
      const outputSchema = answerSchemaOf(body);
      // A schema the runtime cannot check is the caller's error: refused before the run exists.
      if (outputSchema !== undefined) {
        outputFromJsonSchema(outputSchema, { source: 'response_format.json_schema.schema' });
      }
      const budget = effectiveBudget(profile, undefined, config.maxima);
      const { record, done } = await runs.submit({
        principal,
        kind: 'chat',
        query,
        inlineContext: context,
        profileName: body.model,
        budget,
        ...(outputSchema === undefined ? {} : { outputSchema }),
      });
      const id = `chatcmpl-${record.id}`;
      const created = Math.floor(record.createdAt / 1000);
      c.header('x-rlm-run-id', record.id);
      if (body.stream !== true) {
        const outcome = await raceDisconnect(done, c.req.raw.signal, () => runs.cancel(record.id));
        if (outcome.status === 'error') throw runFailed(outcome);
        if (missesSchemaAnswer(outputSchema, outcome))
          throw noSchemaAnswer(body, outcome, budget.maxIterations);
        return c.json({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: replyText(outcome), refusal: null },
              finish_reason: finishReason(outcome),
              logprobs: null,
            },
          ],
          usage: openAiUsage(outcome),
          rlm: {
            runId: record.id,
            status: outcome.status,
            iterations: outcome.iterations,
            costUsd: totalUsage(outcome.usage).costUsd,
            partialAnswer: outcome.partialAnswer,
          },
        });
      }
      const includeUsage = body.stream_options?.include_usage === true;
      return guardedSse(c, async (stream) => {
        stream.onAbort(() => void runs.cancel(record.id));
        const chunk = (delta: object, finish: string | null) =>
          stream.writeSSE({
            data: JSON.stringify({
              id,
              object: 'chat.completion.chunk',
              created,
              model: body.model,
              choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
              ...(includeUsage ? { usage: null } : {}),
            }),
          });
        await chunk({ role: 'assistant', content: '' }, null);
        const keepAlive = setInterval(
          () => void stream.write(': keep-alive\n\n'),
          config.heartbeatMs,
        );
        const outcome = await done.finally(() => clearInterval(keepAlive));
        const failure =
          outcome.status === 'error'
            ? runFailed(outcome)
            : missesSchemaAnswer(outputSchema, outcome)
              ? noSchemaAnswer(body, outcome, budget.maxIterations)
              : undefined;
        if (failure !== undefined) {
          const error = failure.toJSON();
          await stream.writeSSE({
            data: JSON.stringify({ error: { ...error, type: 'server_error' } }),
          });
          return;
        }
        await chunk({ content: replyText(outcome) }, null);
        await chunk({}, finishReason(outcome));
        if (includeUsage) {
          await stream.writeSSE({
            data: JSON.stringify({
              id,
              object: 'chat.completion.chunk',
              created,
              model: body.model,
              choices: [],
              usage: openAiUsage(outcome),
            }),
          });
        }
        await stream.writeSSE({ data: '[DONE]' });
      });
    },
  );
  return app;
}

/**
 * Only an answer is the assistant's reply. A run that stopped without one leaves its last response
 * (protocol text such as `FINAL_VAR(answer)` or half-written code) in `rlm.partialAnswer`, not in
 * `content`, where a client would take it for the model's words.
 */
function replyText(outcome: RunOutcome): string {
  return outcome.answer ?? '';
}

/** A `json_schema` request's run ended with no answer that matched the schema. */
function missesSchemaAnswer(schema: unknown, outcome: RunOutcome): boolean {
  return schema !== undefined && outcome.answer === null;
}

/**
 * The client asked for JSON of a schema and there is none: an empty `content` would make
 * `parse()` helpers throw a JSON syntax error far from the cause, so the reply is an error naming
 * how the run ended. 422 (a limit, like a budget), which OpenAI clients do not retry.
 */
function noSchemaAnswer(
  body: ChatCompletionRequest,
  outcome: RunOutcome,
  maxIterations: number,
): RlmError<'executor.budget_exceeded'> {
  const format = body.response_format;
  const wanted =
    format?.type === 'json_schema'
      ? `response_format.json_schema "${format.json_schema.name}"`
      : 'response_format json_object';
  return new RlmError({
    code: 'executor.budget_exceeded',
    message: `The RLM run ended ${outcome.status} after ${outcome.iterations} iterations without an answer matching ${wanted}; raise the profile's maxIterations, or ask for something the model can answer`,
    details: { limit: outcome.status, used: outcome.iterations, max: maxIterations },
  });
}

function finishReason(outcome: RunOutcome): 'stop' | 'length' {
  return outcome.status === 'completed' ? 'stop' : 'length';
}

function openAiUsage(outcome: RunOutcome) {
  const total = totalUsage(outcome.usage);
  const prompt = total.inputTokens + total.cacheReadTokens + total.cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: total.outputTokens,
    total_tokens: prompt + total.outputTokens,
    prompt_tokens_details: { cached_tokens: total.cacheReadTokens },
  };
}

function runFailed(outcome: RunOutcome): RlmError<'server.unavailable'> {
  return new RlmError({
    code: 'server.unavailable',
    message: `The RLM run failed: ${outcome.error?.code ?? 'error'}: ${outcome.error?.message ?? 'no detail'}`,
    details: { reason: outcome.error?.code ?? 'run error' },
  });
}

/** Cancels the run when the client goes away before the answer. */
async function raceDisconnect(
  done: Promise<RunOutcome>,
  signal: AbortSignal,
  cancel: () => Promise<boolean>,
): Promise<RunOutcome> {
  const onAbort = () => void cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await done;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
