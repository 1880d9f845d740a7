import type { RunRecord, RunStore } from '@rlm/memory';
import { RlmError, type RunEvent, totalUsage } from '@rlm/protocol';
import type { Principal } from './api-key-store.js';
import type { RunView } from './api-schemas.js';
import { type RunMeta, runMetaSchema } from './run-meta.js';
import { outcomeFromEvents, type RunOutcome } from './run-outcome.js';

/** Reads runs for the API, enforcing ownership, and remembers finished runs' outcomes. */
export interface RunViews {
  /** @throws RlmError `server.not_found` when the run does not exist or belongs to another key */
  owned(principal: Principal, runId: string): Promise<{ record: RunRecord; meta: RunMeta }>;
  view(record: RunRecord, meta: RunMeta): Promise<RunView>;
}

const OUTCOME_CACHE_SIZE = 2_000;

export interface RunViewsOptions {
  /** Whether `POST /v1/runs/:id/resume` would continue the run (the view's `resumable`). */
  resumable?: (record: RunRecord) => Promise<boolean>;
}

export function createRunViews(store: RunStore, options: RunViewsOptions = {}): RunViews {
  // An ended run changes only when it is resumed, which ends it again at another time: its
  // outcome is read from the event log once per end.
  const outcomes = new Map<string, { endedAt: number; outcome: RunOutcome }>();
  const resumable = options.resumable ?? (async () => false);

  async function outcome(record: RunRecord): Promise<RunOutcome | undefined> {
    if (record.endedAt === null) return undefined;
    const cached = outcomes.get(record.id);
    if (cached?.endedAt === record.endedAt) return cached.outcome;
    const events = await allEvents(store, record.id);
    const found = outcomeFromEvents(events);
    if (found !== undefined) {
      outcomes.delete(record.id);
      if (outcomes.size >= OUTCOME_CACHE_SIZE) {
        outcomes.delete(outcomes.keys().next().value as string);
      }
      outcomes.set(record.id, { endedAt: record.endedAt, outcome: found });
    }
    return found;
  }

  return {
    async owned(principal, runId) {
      const record = await store.getRun(runId);
      const meta = record === undefined ? undefined : runMetaSchema.safeParse(record.config);
      // Another key's run answers exactly like a missing one, so ids cannot be probed.
      if (
        record === undefined ||
        meta === undefined ||
        !meta.success ||
        (principal.role !== 'admin' && meta.data.owner !== principal.keyId)
      ) {
        throw new RlmError({
          code: 'server.not_found',
          message: `No run with id ${runId}`,
          details: { resource: 'run', id: runId },
        });
      }
      return { record, meta: meta.data };
    },
    async view(record, meta) {
      const ended = await outcome(record);
      return {
        id: record.id,
        kind: meta.kind,
        status: record.status,
        profile: meta.profile,
        model: meta.model,
        query: meta.query,
        contextId: meta.contextId,
        agentId: meta.agentId,
        budget: meta.budget,
        createdAt: new Date(record.createdAt).toISOString(),
        updatedAt: new Date(record.updatedAt).toISOString(),
        endedAt: record.endedAt === null ? null : new Date(record.endedAt).toISOString(),
        usage: record.usage,
        costUsd: totalUsage(record.usage).costUsd,
        answer: ended?.answer ?? null,
        partialAnswer: ended?.partialAnswer ?? null,
        refusedCalls: ended === undefined ? null : (ended.refusedCalls ?? 0),
        sandboxResets: ended === undefined ? null : (ended.sandboxResets ?? 0),
        iterations: ended?.iterations ?? null,
        durationMs: ended?.durationMs ?? null,
        error: ended?.error ?? null,
        resumable: ended !== undefined && (await resumable(record)),
      };
    },
  };
}

async function allEvents(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await store.eventsAfter(runId, after, { limit: 1000 });
    for (const stored of page) events.push(stored.event);
    if (page.length < 1000) return events;
    after = page.at(-1)?.seq ?? after;
  }
}
