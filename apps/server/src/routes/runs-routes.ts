import { outputFromJsonSchema } from '@rlm/executor';
import type { RunRecord } from '@rlm/memory';
import { isEndStatus, RlmError, type TrajectoryRecord } from '@rlm/protocol';
import { trajectoryHeader } from '@rlm/trace';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../app-env.js';
import { effectiveBudget } from '../effective-budget.js';
import { payloadTooLarge } from '../payload-too-large.js';
import { parseQuery, readJsonBody } from '../read-json-body.js';
import { redactUpstream, redactUpstreamJson } from '../redact-upstream.js';
import { resolveProfile } from '../resolve-profile.js';
import { runMetaSchema } from '../run-meta.js';
import { withoutSupersededEnds } from '../run-outcome.js';
import {
  createRunRequestSchema,
  listRunsQuerySchema,
  resumeRunRequestSchema,
} from '../run-request.js';
import { resumedBudget } from '../runs/resume-ended-run.js';
import type { ServerServices } from '../server-services.js';
import { resumePoint, streamRunEvents } from './run-event-stream.js';

/** `/v1/runs`: create, read, stream, cancel, resume, trajectory and list. */
export function runsRoutes(services: ServerServices): Hono<AppEnv> {
  const { config, store, runs, views, contexts, hub } = services;
  const app = new Hono<AppEnv>();

  app.post(
    '/',
    bodyLimit({
      maxSize: config.limits.contextBytes,
      onError: payloadTooLarge('request body', config.limits.contextBytes),
    }),
    async (c) => {
      const principal = c.get('principal');
      const body = await readJsonBody(c, createRunRequestSchema, 'run request');
      const { name, profile } = resolveProfile(config, body.profile);
      const contextId = body.contextId;
      if (contextId !== undefined) {
        const meta = await contexts.meta(contextId);
        if (meta === undefined || (principal.role !== 'admin' && meta.owner !== principal.keyId)) {
          throw new RlmError({
            code: 'server.not_found',
            message: `No context with id ${contextId}`,
            details: { resource: 'context', id: contextId },
          });
        }
      }
      // A schema that cannot be checked is the caller's error, said before the run is queued.
      if (body.outputSchema !== undefined) {
        outputFromJsonSchema(body.outputSchema, { source: 'outputSchema' });
      }
      const { record } = await runs.submit({
        principal,
        kind: 'run',
        query: body.query,
        ...(contextId === undefined ? { inlineContext: body.context ?? '' } : { contextId }),
        profileName: name,
        budget: effectiveBudget(profile, body.config, config.maxima),
        ...(body.outputSchema === undefined ? {} : { outputSchema: body.outputSchema }),
      });
      const meta = runMetaSchema.parse(record.config);
      const view = redactUpstreamJson(principal, await views.view(record, meta));
      return c.json({ ...view, links: runLinks(record.id, view) }, 202, {
        location: `/v1/runs/${record.id}`,
      });
    },
  );

  app.get('/', async (c) => {
    const principal = c.get('principal');
    const query = parseQuery(c, listRunsQuerySchema);
    // Users see only their runs: the store filters by owner, so every page is full while more
    // of them exist and `nextCursor` is exact.
    const page = await store.runs.listRuns({
      parentId: null,
      limit: query.limit,
      ...(principal.role === 'admin' ? {} : { owner: principal.keyId }),
      ...(query.status === undefined ? {} : { status: query.status as never }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    const data = redactUpstreamJson(principal, await serverRunViews(page.runs));
    return c.json({ data, nextCursor: page.nextCursor });
  });

  /** Views of the runs the server created (records written by others have no server metadata). */
  async function serverRunViews(records: readonly RunRecord[]) {
    const found = [];
    for (const record of records) {
      const meta = runMetaSchema.safeParse(record.config);
      if (meta.success) found.push(await views.view(record, meta.data));
    }
    return found;
  }

  app.get('/:id', async (c) => {
    const principal = c.get('principal');
    const { record, meta } = await views.owned(principal, c.req.param('id'));
    const view = redactUpstreamJson(principal, await views.view(record, meta));
    return c.json({ ...view, links: runLinks(record.id, view) });
  });

  app.get('/:id/events', async (c) => {
    const principal = c.get('principal');
    const { record } = await views.owned(principal, c.req.param('id'));
    return streamRunEvents(c, {
      redact: (json) => redactUpstream(principal, json),
      store: store.runs,
      hub,
      runId: record.id,
      afterSeq: resumePoint(c),
      heartbeatMs: config.heartbeatMs,
      stopping: services.stopping,
      // A run active in this process is not finished; only then is the store asked.
      isFinished: async () =>
        !runs.isActive(record.id) &&
        isEndStatus((await store.runs.getRun(record.id))?.status ?? 'error'),
    });
  });

  app.post('/:id/cancel', async (c) => {
    const { record, meta } = await views.owned(c.get('principal'), c.req.param('id'));
    if (isEndStatus(record.status) || !(await runs.cancel(record.id))) {
      throw new RlmError({
        code: 'server.conflict',
        message: `Run ${record.id} has already ended (${record.status})`,
        details: { reason: 'run already ended' },
      });
    }
    const current = (await store.runs.getRun(record.id)) ?? record;
    const view = redactUpstreamJson(c.get('principal'), await views.view(current, meta));
    return c.json({ ...view, links: runLinks(record.id, view) }, 202);
  });

  app.post('/:id/resume', async (c) => {
    const principal = c.get('principal');
    const { record, meta } = await views.owned(principal, c.req.param('id'));
    // No body at all asks for the run's own limits.
    const body =
      (await c.req.text()).trim() === ''
        ? {}
        : await readJsonBody(c, resumeRunRequestSchema, 'resume request');
    const budget = resumedBudget(meta.budget, body.config, config.maxima);
    const reopened = await runs.resume({ record, meta, budget });
    const view = redactUpstreamJson(principal, await views.view(reopened, { ...meta, budget }));
    return c.json({ ...view, links: runLinks(record.id, view) }, 202);
  });

  // A run still queued or running is refused rather than cancelled on the way: deleting is
  // irreversible, and a cancel is itself a request the owner may want to see end first.
  app.delete('/:id', async (c) => {
    const { record, meta } = await views.owned(c.get('principal'), c.req.param('id'));
    if (!isEndStatus(record.status) || runs.isActive(record.id)) {
      throw new RlmError({
        code: 'server.conflict',
        message: `Run ${record.id} is ${record.status}: cancel it (POST /v1/runs/${record.id}/cancel) and delete it once it has ended`,
        details: { reason: 'run is active' },
      });
    }
    await store.runs.deleteRun(record.id);
    if (meta.contextOwned) await contexts.remove(meta.contextId);
    return c.body(null, 204);
  });

  app.get('/:id/trajectory', async (c) => {
    const { record, meta } = await views.owned(c.get('principal'), c.req.param('id'));
    // A resumed run's log keeps the end of the attempt it continued; served, the run ends once.
    let records: TrajectoryRecord[] = await store.runs.trajectory(record.id);
    if (records.length === 0) {
      // Engines without a trajectory sink still leave the event log: serve it in trajectory form.
      const { query: _query, ...config } = meta;
      const header = trajectoryHeader({ runId: record.id, createdAt: record.createdAt, config });
      records = [header];
      for (const { event } of await store.runs.eventsAfter(record.id, 0))
        records.push({ kind: 'event', event });
    }
    const served = withoutSupersededEnds(records, (item) =>
      item.kind === 'event' ? item.event : undefined,
    );
    const body = served.map((item) => `${JSON.stringify(item)}\n`).join('');
    return c.body(redactUpstream(c.get('principal'), body), 200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${record.id}.jsonl"`,
    });
  });

  return app;
}

function runLinks(id: string, { resumable = false }: { resumable?: boolean } = {}) {
  return {
    self: `/v1/runs/${id}`,
    ...(resumable ? { resume: `/v1/runs/${id}/resume` } : {}),
    events: `/v1/runs/${id}/events`,
    trajectory: `/v1/runs/${id}/trajectory`,
    cancel: `/v1/runs/${id}/cancel`,
    delete: `/v1/runs/${id}`,
    ui: `/ui/runs/${id}`,
  };
}
