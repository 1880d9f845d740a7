import {
  MAX_RUN_EVENT_CHARS,
  RUN_EVENT_VERSION,
  type RunEvent,
  type RunEventOf,
} from '@rlm/protocol';
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

/** The event as it was built before any cut: the fields `emit` adds, then the body. */
function wholeEvent(body: RunEventBody, parentRunId: string | null): RunEvent {
  return {
    v: RUN_EVENT_VERSION,
    runId: 'root-run.1',
    parentRunId,
    rootRunId: 'root-run',
    depth: 1,
    at: AT,
    ...body,
  } as RunEvent;
}

const SIXTH = Math.floor(MAX_RUN_EVENT_CHARS / 6);
// A short string beside one whose JSON meets the cap: `x` and `é` (bounded at six characters
// each, written as one) near a sixth of the cap, where the bound crosses the cap and the JSON
// does not; `\u0001` (written as six) just below a sixth, where the event's own JSON crosses it.
const stdout = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc
    .tuple(fc.integer({ min: SIXTH - 150, max: SIXTH + 150 }), fc.constantFrom('x', 'é'))
    .map(([size, unit]) => unit.repeat(size)),
  fc.integer({ min: SIXTH - 70, max: SIXTH - 10 }).map((size) => '\u0001'.repeat(size)),
);

describe('RunNode.emit', () => {
  it('emits the whole event when its JSON fits the cap, and a cut one only when it does not', () => {
    fc.assert(
      fc.property(
        stdout,
        fc.string({ maxLength: 16 }),
        fc.constantFrom(null, 'root-run'),
        (out, err, parentRunId) => {
          const events: RunEvent[] = [];
          const body: RunEventBody = {
            type: 'block-end',
            iteration: 3,
            index: 0,
            stdout: out,
            stderr: err,
            executionTime: 0.25,
            finalAnswer: null,
            error: null,
            unawaitedCalls: {},
          };
          nodeEmittingTo(events, { parentRunId }).emit(body);
          expect(events).toHaveLength(1);
          const whole = wholeEvent(body, parentRunId);
          const emitted = events[0] as RunEventOf<'block-end'>;
          if (JSON.stringify(whole).length <= MAX_RUN_EVENT_CHARS) {
            expect(emitted).toEqual(whole);
          } else {
            // Cut by `capRunEvent` (its own tests pin how): another output, JSON within the cap.
            expect(emitted.stdout).not.toBe(out);
            expect(JSON.stringify(emitted).length).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
          }
        },
      ),
      { numRuns: 24 },
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
