import type { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import {
  answerSchemaOf,
  type ChatCompletionRequest,
  chatCompletionRequestSchema,
  toRunInput,
} from '../chat-completion-request.js';
import { redactUpstream } from '../redact-upstream.js';
import type { RunOutcome } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';
import { followRunProgress } from './follow-run-progress.js';
import { replyText, runTokens } from './openai-run-replies.js';
import { openAiRunRoute } from './openai-run-route.js';

/**
 * `POST /v1/chat/completions`, OpenAI-compatible: `model` names a configured profile, the last
 * user message is the query, and the answer comes back as the assistant message. With
 * `stream: true` the reply is OpenAI's `data:`-only SSE: a role chunk, then the run's progress as
 * `delta.reasoning_content` lines while it works (comment keep-alives when it is quiet), then the
 * answer as `delta.content`, the finish chunk, the usage chunk when asked and `[DONE]`. `tools`
 * are refused unless the profile's MCP servers serve them (see `refuseUnservedTools`).
 */
export function chatCompletionsRoutes(services: ServerServices): Hono<AppEnv> {
  return openAiRunRoute(services, {
    schema: chatCompletionRequestSchema,
    what: 'chat completion request',
    runRequest: (body) => ({
      ...toRunInput(body),
      outputSchema: answerSchemaOf(body),
      schemaField: 'response_format.json_schema.schema',
    }),
    wantedFormat,
    reply: ({ body, record }, outcome) => ({
      id: `chatcmpl-${record.id}`,
      object: 'chat.completion',
      created: Math.floor(record.createdAt / 1000),
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
        costUsd: runTokens(outcome).costUsd,
        partialAnswer: outcome.partialAnswer,
      },
    }),
    async stream(stream, { body, record, principal, failureOf }, follow) {
      const id = `chatcmpl-${record.id}`;
      const created = Math.floor(record.createdAt / 1000);
      const includeUsage = body.stream_options?.include_usage === true;
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
      const outcome = await followRunProgress({
        ...follow,
        onProgress: (text) => chunk({ reasoning_content: redactUpstream(principal, text) }, null),
        onIdle: () => stream.write(': keep-alive\n\n'),
      });
      const failure = failureOf(outcome);
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
    },
  });
}

/** The request's JSON format field, as errors name it. */
function wantedFormat(body: ChatCompletionRequest): string {
  const format = body.response_format;
  return format?.type === 'json_schema'
    ? `response_format.json_schema "${format.json_schema.name}"`
    : 'response_format json_object';
}

function finishReason(outcome: RunOutcome): 'stop' | 'length' {
  return outcome.status === 'completed' ? 'stop' : 'length';
}

function openAiUsage(outcome: RunOutcome) {
  const tokens = runTokens(outcome);
  return {
    prompt_tokens: tokens.input,
    completion_tokens: tokens.output,
    total_tokens: tokens.input + tokens.output,
    prompt_tokens_details: { cached_tokens: tokens.cached },
  };
}
