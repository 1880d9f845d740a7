import { outputFromJsonSchema } from '@rlm/executor';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { SSEStreamingApi } from 'hono/streaming';
import type { AppEnv } from '../app-env.js';
import { effectiveBudget } from '../effective-budget.js';
import { guardedSse } from '../guarded-sse.js';
import { ownProfile, profileNames } from '../own-profile.js';
import { payloadTooLarge } from '../payload-too-large.js';
import { readJsonBody } from '../read-json-body.js';
import { redactUpstream } from '../redact-upstream.js';
import type { RunOutcome } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';
import { followRunProgress } from './follow-run-progress.js';
import {
  missesSchemaAnswer,
  noSchemaAnswer,
  raceDisconnect,
  replyText,
  runFailed,
} from './openai-run-replies.js';
import { refuseUnservedTools } from './refuse-unserved-tools.js';
import {
  answerMessage,
  finalOutput,
  messageItemId,
  outputText,
  progressItem,
  type ResponseIdentity,
  reasoningItemId,
  responseObject,
} from './response-object.js';
import {
  type ResponsesRequest,
  responsesAnswerSchema,
  responsesRequestSchema,
  responsesRunInput,
} from './responses-request.js';

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
      const profile = ownProfile(config, body.model);
      if (profile === undefined) {
        throw new RlmError({
          code: 'server.not_found',
          message: `The model "${body.model}" does not exist; configured models: ${profileNames(config)}`,
          details: { resource: 'model', id: body.model },
        });
      }
      await refuseUnservedTools(body['tools'], { profile, profileName: body.model });
      const { query, context } = responsesRunInput(body);
      const outputSchema = responsesAnswerSchema(body);
      // A schema the runtime cannot check is the caller's error: refused before the run exists.
      if (outputSchema !== undefined) {
        outputFromJsonSchema(outputSchema, { source: 'text.format.schema' });
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
        const events = responseEvents(stream);
        await events.send('response.created', { response: responseObject(identity) });
        await events.send('response.in_progress', { response: responseObject(identity) });
        let progress = '';
        const reasoningId = reasoningItemId(record.id);
        const outcome = await followRunProgress({
          store: store.runs,
          hub,
          runId: record.id,
          done,
          heartbeatMs: config.heartbeatMs,
          signal: gone.signal,
          async onProgress(lines) {
            const delta = redactUpstream(principal, lines);
            if (progress === '') {
              await events.send('response.output_item.added', {
                output_index: 0,
                item: progressItem(record.id, '', 'in_progress'),
              });
              await events.send('response.reasoning_summary_part.added', {
                item_id: reasoningId,
                output_index: 0,
                summary_index: 0,
                part: { type: 'summary_text', text: '' },
              });
            }
            progress += delta;
            await events.send('response.reasoning_summary_text.delta', {
              item_id: reasoningId,
              output_index: 0,
              summary_index: 0,
              delta,
            });
          },
          onIdle: () => stream.write(': keep-alive\n\n'),
        });
        const output: object[] = [];
        if (progress !== '') {
          const part = { item_id: reasoningId, output_index: 0, summary_index: 0 };
          await events.send('response.reasoning_summary_text.done', { ...part, text: progress });
          await events.send('response.reasoning_summary_part.done', {
            ...part,
            part: { type: 'summary_text', text: progress },
          });
          const item = progressItem(record.id, progress, 'completed');
          await events.send('response.output_item.done', { output_index: 0, item });
          output.push(item);
        }
        const failure = failureOf(outcome);
        if (failure !== undefined) {
          await events.send('response.failed', {
            response: responseObject(identity, { outcome, output, failure }),
          });
          return;
        }
        await sendAnswer(events, { runId: record.id, text: replyText(outcome), output });
        await events.send(
          outcome.status === 'completed' ? 'response.completed' : 'response.incomplete',
          { response: responseObject(identity, { outcome, output }) },
        );
      });
    },
  );
  return app;
}

type ResponseEvents = ReturnType<typeof responseEvents>;

/** Typed events (`event:` is the type, as OpenAI sends them), numbered from 0. */
function responseEvents(stream: SSEStreamingApi) {
  let sequence = 0;
  return {
    send(type: string, fields: object) {
      const data = JSON.stringify({ type, sequence_number: sequence, ...fields });
      sequence += 1;
      return stream.writeSSE({ event: type, data });
    },
  };
}

/** The answer message: added, its one text part with the whole answer as one delta, done. */
async function sendAnswer(
  events: ResponseEvents,
  { runId, text, output }: { runId: string; text: string; output: object[] },
): Promise<void> {
  const where = { item_id: messageItemId(runId), output_index: output.length, content_index: 0 };
  await events.send('response.output_item.added', {
    output_index: where.output_index,
    item: answerMessage(runId, '', 'in_progress'),
  });
  await events.send('response.content_part.added', { ...where, part: outputText('') });
  await events.send('response.output_text.delta', { ...where, delta: text, logprobs: [] });
  await events.send('response.output_text.done', { ...where, text, logprobs: [] });
  await events.send('response.content_part.done', { ...where, part: outputText(text) });
  const item = answerMessage(runId, text, 'completed');
  await events.send('response.output_item.done', { output_index: where.output_index, item });
  output.push(item);
}

/** The request's JSON format field, as errors name it. */
function wantedFormat(body: ResponsesRequest): string {
  const format = body.text?.format;
  return format?.type === 'json_schema'
    ? `text.format json_schema "${format.name}"`
    : 'text.format json_object';
}
