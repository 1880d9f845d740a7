import { capRunEvent, MAX_RUN_EVENT_CHARS, RUN_EVENT_VERSION, type RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRLMConfig } from '../config/rlm-config.js';
import { BudgetScope } from './budget-scope.js';
import { EventBus } from './event-bus.js';
import { type RunEventBody, RunNode } from './run-node.js';
import { RunTracing, tracerOf } from './run-tracing.js';
import { liveResponder } from './run-tree.js';

const AT = 1_700_000_000_000;

function nodeEmittingTo(events: RunEvent[], { parentRunId }: { parentRunId: string | null }) {
  const config = parseRLMConfig({ model: scriptedModel(['FINAL(x)']) });
  const tree = {
    config,
    rootRunId: 'root-run',
    now: () => AT,
    bus: new EventBus([(event) => void events.push(event)]),
    recorder: null,
    respond: liveResponder,
    tracing: new RunTracing(tracerOf({})),
  };
  const scope = new BudgetScope({ now: tree.now });
  return new RunNode(tree, { runId: 'root-run.1', parentRunId, depth: 1, scope });
}

/** What an event was before: the whole event, cut by `capRunEvent` when its JSON is too long. */
function cappedWhole(body: RunEventBody, parentRunId: string | null): RunEvent {
  const whole = {
    v: RUN_EVENT_VERSION,
    runId: 'root-run.1',
    parentRunId,
    rootRunId: 'root-run',
    depth: 1,
    at: AT,
    ...body,
  } as RunEvent;
  return capRunEvent(whole);
}

// Lengths around where a string's JSON (each character up to 6 when escaped) meets the cap.
const length = fc.oneof(
  fc.integer({ min: 0, max: 64 }),
  fc.integer({
    min: Math.floor(MAX_RUN_EVENT_CHARS / 6) - 200,
    max: Math.floor(MAX_RUN_EVENT_CHARS / 6) + 200,
  }),
  fc.integer({ min: MAX_RUN_EVENT_CHARS - 400, max: MAX_RUN_EVENT_CHARS + 50 }),
);
const text = fc
  .tuple(length, fc.constantFrom('x', '\u0001', '"', 'é'))
  .map(([size, unit]) => unit.repeat(size));

describe('RunNode.emit', () => {
  it('emits exactly the event, cut to the cap only when its JSON is longer, for any body', () => {
    fc.assert(
      fc.property(text, text, fc.constantFrom(null, 'root-run'), (stdout, stderr, parentRunId) => {
        const events: RunEvent[] = [];
        const body: RunEventBody = {
          type: 'block-end',
          iteration: 3,
          index: 0,
          stdout,
          stderr,
          executionTime: 0.25,
          finalAnswer: null,
          error: null,
          unawaitedCalls: {},
        };
        nodeEmittingTo(events, { parentRunId }).emit(body);
        expect(events).toHaveLength(1);
        const expected = cappedWhole(body, parentRunId);
        expect(events[0]).toEqual(expected);
        expect(JSON.stringify(events[0]).length).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
      }),
      { numRuns: 20 },
    );
  });

  it('keeps the order of the fields: the ones it adds, then the body', () => {
    const events: RunEvent[] = [];
    nodeEmittingTo(events, { parentRunId: null }).emit({ type: 'iteration-start', iteration: 2 });
    expect(Object.keys(events[0] ?? {})).toEqual([
      'v',
      'runId',
      'parentRunId',
      'rootRunId',
      'depth',
      'at',
      'type',
      'iteration',
    ]);
  });
});
