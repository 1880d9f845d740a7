import type { RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { outcomeFromEvents, serverEndEvents, withoutSupersededEnds } from './run-outcome.js';

const base = { v: 1, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0 } as const;
const end = (status: 'budget_exceeded' | 'completed', at: number): RunEvent =>
  ({ ...serverEndEvents('r', { status: status as never, at }).at(-1), at }) as RunEvent;
const resume = (at: number): RunEvent => ({
  ...base,
  at,
  type: 'run-resume',
  fromIteration: 1,
  model: 'm',
});
const turn = (at: number): RunEvent => ({ ...base, at, type: 'iteration-start', iteration: 1 });

describe('a resumed run ends once', () => {
  it('takes the end after the last run-resume as the outcome, and none while the resume runs', () => {
    const stopped = [turn(1), end('budget_exceeded', 2)];
    expect(outcomeFromEvents(stopped)?.status).toBe('budget_exceeded');
    expect(outcomeFromEvents([...stopped, resume(3), turn(4)])).toBeUndefined();
    expect(outcomeFromEvents([...stopped, resume(3), end('completed', 5)])?.status).toBe(
      'completed',
    );
  });

  it('takes no end at or before the time the run was reopened', () => {
    const stopped = [turn(1), end('budget_exceeded', 2)];
    expect(outcomeFromEvents(stopped, { reopenedAt: 3 })).toBeUndefined();
    // A run still finishing (its status written after its run-end) has ended all the same.
    expect(outcomeFromEvents(stopped, { reopenedAt: 1 })?.status).toBe('budget_exceeded');
  });

  it('serves a log without the ends a resume superseded', () => {
    const log = [turn(1), end('budget_exceeded', 2), resume(3), turn(4), end('completed', 5)];
    const served = withoutSupersededEnds(log, (event) => event);
    expect(served.filter((event) => event.type === 'run-end')).toEqual([log[4]]);
    expect(served).toHaveLength(4);
    const stillRunning = [turn(1), end('budget_exceeded', 2)];
    expect(withoutSupersededEnds(stillRunning, (event) => event)).toEqual(stillRunning);
  });
});
