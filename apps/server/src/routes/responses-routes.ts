import type { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../app-env.js';
import { guardedSse } from '../guarded-sse.js';
import { payloadTooLarge } from '../payload-too-large.js';
import { readJsonBody } from '../read-json-body.js';
import { redactUpstream } from '../redact-upstream.js';
import type { RunOutcome } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';
import {
  missesSchemaAnswer,
  noSchemaAnswer,
  raceDisconnect,
  runFailed,
} from './openai-run-replies.js';
import { finalOutput, type ResponseIdentity, responseObject } from './response-object.js';
import {
  type ResponsesRequest,
  responsesAnswerSchema,
  responsesRequestSchema,
  responsesRunInput,
} from './responses-request.js';
import { streamResponse } from './stream-response.js';
import { submitOpenAiRun } from './submit-openai-run.js';

/**
 * `POST /v1/responses`, OpenAI's Responses API: `model` names a configured profile, the last user
 * message of `input` is the query, and the answer comes back as one assistant message with an
 * `output_text` part. The run is submitted as a chat completion's is (same profile, budget caps,
 * limits and runner). With `stream: true` the reply is the Responses API's typed SSE events; the
 * run's progress comes as a reasoning item's summary text before the answer.
 */
export function responsesRoutes(services: ServerServices): Hono<AppEnv> {
  const { config, runs, store, hub } = services;
  const app = new Hono<AppEnv>();

  app.post(
    '/',
    bodyLimit({
      maxSize: config.limits.contextBytes,
      onError: payloadTooLarge('request body', config.limits.contextBytes),
    }),
    async (c) => {
      const principal = c.get('principal');
      const body = await readJsonBody(c, responsesRequestSchema, 'responses request');
      const outputSchema = responsesAnswerSchema(body);
      const { record, done, budget } = await submitOpenAiRun({ config, runs }, principal, {
        model: body.model,
        tools: body['tools'],
        ...responsesRunInput(body),
        outputSchema,
        schemaField: 'text.format.schema',
      });
      c.header('x-rlm-run-id', record.id);
      const identity: ResponseIdentity = {
        runId: record.id,
        createdAt: Math.floor(record.createdAt / 1000),
        request: body,
      };
      const failureOf = (outcome: RunOutcome): RlmError | undefined =>
        outcome.status === 'error'
          ? runFailed(outcome)
          : missesSchemaAnswer(outputSchema, outcome)
            ? noSchemaAnswer(wantedFormat(body), outcome, budget.maxIterations)
            : undefined;
      if (body.stream !== true) {
        const outcome = await raceDisconnect(done, c.req.raw.signal, () => runs.cancel(record.id));
        const failure = failureOf(outcome);
        if (failure !== undefined) throw failure;
        return c.json(
          responseObject(identity, { outcome, output: finalOutput(record.id, outcome) }),
        );
      }
      return guardedSse(c, async (stream) => {
        const gone = new AbortController();
        stream.onAbort(() => {
          gone.abort();
          void runs.cancel(record.id);
        });
        await streamResponse(stream, {
          identity,
          follow: {
            store: store.runs,
            hub,
            runId: record.id,
            done,
            heartbeatMs: config.heartbeatMs,
            signal: gone.signal,
          },
          redact: (text) => redactUpstream(principal, text),
          failureOf,
        });
      });
    },
  );
  return app;
}

/** The request's JSON format field, as errors name it. */
function wantedFormat(body: ResponsesRequest): string {
  const format = body.text?.format;
  return format?.type === 'json_schema'
    ? `text.format json_schema "${format.name}"`
    : 'text.format json_object';
}
