import type { RunStore, StoredRunEvent } from '@rlm/memory';
import { renderRunHtml, TraceTree } from '@rlm/trace';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { redactUpstream } from '../redact-upstream.js';
import { withoutSupersededEnds } from '../run-outcome.js';
import type { ServerServices } from '../server-services.js';

const PAGE_SIZE = 1000;

/**
 * `GET /v1/runs/:id/view`: the run as the shared trace view (`renderRunHtml` from
 * `@rlm/trace`), an HTML fragment rebuilt from the stored events on every request, so it is
 * the view `rlm trace --html` writes for the same events. Same key and ownership rules as
 * `GET /v1/runs/:id`. `x-last-event-id` names the last event it includes, so a page can follow
 * `/events` from there and fetch the view again when more arrive; `x-run-status` is the run's
 * status (read before the events, so it never claims an end the view does not show yet).
 */
export function runViewRoutes({ store, views }: ServerServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/:id/view', async (c) => {
    const { record } = await views.owned(c.get('principal'), c.req.param('id'));
    const { tree, lastSeq } = await traceOf(store.runs, record.id);
    return c.body(redactUpstream(c.get('principal'), renderRunHtml(tree)), 200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // A fragment, never a page: nothing in it may load or run if it is opened on its own.
      'content-security-policy': "default-src 'none'",
      'x-last-event-id': String(lastSeq),
      'x-run-status': record.status,
    });
  });
  return app;
}

/**
 * Feeds every stored event of a run into a trace tree, without the `run-end` of an attempt a
 * resume continued (see `withoutSupersededEnds`): a resumed run ends once.
 */
async function traceOf(
  store: RunStore,
  runId: string,
): Promise<{ tree: TraceTree; lastSeq: number }> {
  const stored: StoredRunEvent[] = [];
  let lastSeq = 0;
  for (;;) {
    const page = await store.eventsAfter(runId, lastSeq, { limit: PAGE_SIZE });
    stored.push(...page);
    lastSeq = page.at(-1)?.seq ?? lastSeq;
    if (page.length < PAGE_SIZE) break;
  }
  const tree = new TraceTree();
  for (const { event } of withoutSupersededEnds(stored, (item) => item.event)) tree.apply(event);
  return { tree, lastSeq };
}
