import type { RunEvent } from '@rlm/protocol';
import { redactText } from '@rlm/trace';

/** Fields that differ between a run and its replay without meaning anything. */
const TIMING_FIELDS = new Set(['at', 'durationMs', 'executionTime', 'traceId', 'spanId']);

const TYPE_RANK: Record<string, number> = {
  'subcall-start': 0,
  'model-call-start': 1,
  'model-call-end': 2,
  'subcall-end': 3,
  'limit-hit': 4,
};

/** An event in comparable form, with where it stood in its original sequence. */
export interface ComparableEvent {
  position: number;
  text: string;
}

function callNumber(event: RunEvent): number {
  const callId = 'callId' in event ? event.callId : '';
  const number = Number(callId.slice(callId.lastIndexOf(':') + 1));
  return Number.isFinite(number) ? number : 0;
}

function comparableText(event: RunEvent): string {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) {
    if (!TIMING_FIELDS.has(key)) copy[key] = value;
  }
  if (event.type === 'limit-hit' && event.limit === 'wall_time') {
    delete copy['used'];
    delete copy['max'];
  }
  // Recorded events were redacted on the way to disk; redact live ones the same way.
  return redactText(JSON.stringify(copy));
}

/**
 * Puts a run tree's events in an order that does not depend on timing: grouped by run (in the
 * order runs started), without `run-resume` markers, and inside each code block, sub-call events sorted by call id — concurrent
 * sub-calls finish in whatever order the network decides, which replay cannot and need not repeat.
 */
export function comparableEvents(events: readonly RunEvent[]): ComparableEvent[] {
  const byRun = new Map<string, { event: RunEvent; position: number }[]>();
  // A resume marks where a stopped run went on; a replay runs straight through.
  const straight = [...events.entries()].filter(([, event]) => event.type !== 'run-resume');
  for (const [position, event] of straight) {
    const list = byRun.get(event.runId) ?? [];
    list.push({ event, position });
    byRun.set(event.runId, list);
  }
  const result: ComparableEvent[] = [];
  for (const list of byRun.values()) {
    let inBlock: { event: RunEvent; position: number }[] = [];
    let blockOpen = false;
    const flush = () => {
      inBlock.sort(
        (a, b) =>
          callNumber(a.event) - callNumber(b.event) ||
          (TYPE_RANK[a.event.type] ?? 9) - (TYPE_RANK[b.event.type] ?? 9),
      );
      for (const item of inBlock)
        result.push({ position: item.position, text: comparableText(item.event) });
      inBlock = [];
    };
    for (const item of list) {
      if (item.event.type === 'block-end') {
        flush();
        blockOpen = false;
      }
      if (blockOpen) inBlock.push(item);
      else result.push({ position: item.position, text: comparableText(item.event) });
      if (item.event.type === 'block-start') blockOpen = true;
    }
    flush();
  }
  return result;
}
