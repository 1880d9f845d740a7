import type { RunRecord } from '@rlm/memory';
import type { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { redactUpstream } from '../redact-upstream.js';
import type { ServerServices } from '../server-services.js';
import { openAiRunRoute } from './openai-run-route.js';
import { finalOutput, type ResponseIdentity, responseObject } from './response-object.js';
import {
  type ResponsesRequest,
  responsesAnswerSchema,
  responsesRequestSchema,
  responsesRunInput,
} from './responses-request.js';
import { streamResponse } from './stream-response.js';

/**
 * `POST /v1/responses`, OpenAI's Responses API: `model` names a configured profile, the last user
 * message of `input` is the query, and the answer comes back as one assistant message with an
 * `output_text` part. The run is submitted as a chat completion's is (same profile, budget caps,
 * limits and runner). With `stream: true` the reply is the Responses API's typed SSE events; the
 * run's progress comes as a reasoning item's summary text before the answer.
 */
export function responsesRoutes(services: ServerServices): Hono<AppEnv> {
  return openAiRunRoute(services, {
    schema: responsesRequestSchema,
    what: 'responses request',
    runRequest: (body) => ({
      ...responsesRunInput(body),
      outputSchema: responsesAnswerSchema(body),
      schemaField: 'text.format.schema',
    }),
    wantedFormat,
    reply: ({ body, record }, outcome) =>
      responseObject(identityOf(body, record), {
        outcome,
        output: finalOutput(record.id, outcome),
      }),
    stream: (stream, { body, record, principal, failureOf }, follow) =>
      streamResponse(stream, {
        identity: identityOf(body, record),
        follow,
        redact: (text) => redactUpstream(principal, text),
        failureOf,
      }),
  });
}

function identityOf(body: ResponsesRequest, record: RunRecord): ResponseIdentity {
  return { runId: record.id, createdAt: Math.floor(record.createdAt / 1000), request: body };
}

/** The request's JSON format field, as errors name it. */
function wantedFormat(body: ResponsesRequest): string {
  const format = body.text?.format;
  return format?.type === 'json_schema'
    ? `text.format json_schema "${format.name}"`
    : 'text.format json_object';
}
