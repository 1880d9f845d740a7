import type { RunStore } from '@rlm/memory';
import type { RunEvent } from '@rlm/protocol';

const PAGE = 1000;

/** Every stored event of a run, in order, read in pages. */
export async function allEvents(store: RunStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let after = 0;
  for (;;) {
    const page = await store.eventsAfter(runId, after, { limit: PAGE });
    for (const stored of page) events.push(stored.event);
    if (page.length < PAGE) return events;
    after = page.at(-1)?.seq ?? after;
  }
}
