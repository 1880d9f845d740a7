import { RUN_EVENTS_CHANNEL } from '@rlm/memory';
import type { EventHub } from '../event-hub.js';
import type { Cluster } from './open-cluster.js';

/**
 * Wakes this replica's event streams when any replica stores an event (the store's trigger
 * announces each append) or changes a run's status (`RunCoordinator.announce`). A payload without
 * a run id (a run id too long to announce, or a reconnect that may have missed some) wakes every
 * stream; streams re-read the store anyway at each heartbeat. Returns the unsubscribe function.
 */
export function wakeStreams(cluster: Cluster, hub: EventHub): () => void {
  return cluster.listen(RUN_EVENTS_CHANNEL, (payload) => {
    let runId: unknown;
    try {
      runId = (JSON.parse(payload) as { runId?: unknown }).runId;
    } catch {
      runId = undefined;
    }
    if (typeof runId === 'string') hub.notify(runId);
    else hub.notifyAll();
  });
}
