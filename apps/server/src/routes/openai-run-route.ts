import type { RunRecord } from '@rlm/memory';
import type { JsonValue, RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { SSEStreamingApi } from 'hono/streaming';
import type { z } from 'zod';
import type { Principal } from '../api-key-store.js';
import type { AppEnv } from '../app-env.js';
import { guardedSse } from '../guarded-sse.js';
import { payloadTooLarge } from '../payload-too-large.js';
import { readJsonBody } from '../read-json-body.js';
import type { RunOutcome } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';
import type { FollowRunProgressOptions } from './follow-run-progress.js';
import {
  missesSchemaAnswer,
  noSchemaAnswer,
  raceDisconnect,
  runFailed,
} from './openai-run-replies.js';
import { submitOpenAiRun } from './submit-openai-run.js';

/** What every OpenAI-style request body has: the profile as `model`, and `stream`. */
interface OpenAiBody {
  model: string;
  stream?: boolean | null | undefined;
}

/** One submitted OpenAI-style run, as a route's reply writers see it. */
export interface OpenAiRun<TBody> {
  body: TBody;
  principal: Principal;
  record: RunRecord;
  /** Why the ended run is no answer (it failed, or found no answer matching the schema). */
  failureOf(outcome: RunOutcome): RlmError | undefined;
}

/** How one OpenAI-style route reads its request and writes its replies. */
export interface OpenAiRouteSpec<TSchema extends z.ZodType<OpenAiBody>> {
  schema: TSchema;
  /** The body's name in errors (`chat completion request`). */
  what: string;
  /** The query, the context and the answer schema (with the field it came from) of a request. */
  runRequest(body: z.output<TSchema>): {
    query: string;
    context: JsonValue;
    outputSchema: Record<string, JsonValue> | undefined;
    schemaField: string;
  };
  /** The request's JSON format field, as errors name it. */
  wantedFormat(body: z.output<TSchema>): string;
  /** The JSON reply of a run that ended with an answer (`stream` off). */
  reply(run: OpenAiRun<z.output<TSchema>>, outcome: RunOutcome): object;
  /** Writes the streamed reply, following the run with `follow` (`stream: true`). */
  stream(
    stream: SSEStreamingApi,
    run: OpenAiRun<z.output<TSchema>>,
    follow: Omit<FollowRunProgressOptions, 'onProgress' | 'onIdle'>,
  ): Promise<void>;
}

/**
 * An OpenAI-style route (`/v1/chat/completions`, `/v1/responses`): the body read within the
 * context limit, the run submitted as `submitOpenAiRun` does, its id in `x-rlm-run-id`; then the
 * JSON reply once the run ends (a client that hangs up cancels it), or the streamed reply (the
 * run is cancelled when the stream is closed). Only the reply formats differ between routes.
 */
export function openAiRunRoute<TSchema extends z.ZodType<OpenAiBody>>(
  services: ServerServices,
  spec: OpenAiRouteSpec<TSchema>,
): Hono<AppEnv> {
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
      const body = await readJsonBody(c, spec.schema, spec.what);
      const request = spec.runRequest(body);
      const { record, done, budget } = await submitOpenAiRun({ config, runs }, principal, {
        model: body.model,
        tools: (body as Record<string, unknown>)['tools'],
        ...request,
      });
      c.header('x-rlm-run-id', record.id);
      const run: OpenAiRun<z.output<TSchema>> = {
        body,
        principal,
        record,
        failureOf: (outcome) =>
          outcome.status === 'error'
            ? runFailed(outcome)
            : missesSchemaAnswer(request.outputSchema, outcome)
              ? noSchemaAnswer(spec.wantedFormat(body), outcome, budget.maxIterations)
              : undefined,
      };
      if (body.stream !== true) {
        const outcome = await raceDisconnect(done, c.req.raw.signal, () => runs.cancel(record.id));
        const failure = run.failureOf(outcome);
        if (failure !== undefined) throw failure;
        return c.json(spec.reply(run, outcome));
      }
      return guardedSse(c, async (stream) => {
        const gone = new AbortController();
        stream.onAbort(() => {
          gone.abort();
          void runs.cancel(record.id);
        });
        await spec.stream(stream, run, {
          store: store.runs,
          hub,
          runId: record.id,
          done,
          heartbeatMs: config.heartbeatMs,
          signal: gone.signal,
        });
      });
    },
  );
  return app;
}
