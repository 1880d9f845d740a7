import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capRunEvent, MAX_RUN_EVENT_CHARS } from './cap-run-event.js';
import { type RunEvent, runEventSchema } from './run-event.js';

const base = { v: 1, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0, at: 1 } as const;

function blockEnd(stdout: string, stderr: string, finalAnswer: string | null): RunEvent {
  return {
    ...base,
    type: 'block-end',
    iteration: 0,
    index: 0,
    stdout,
    stderr,
    executionTime: 1,
    finalAnswer,
    error: { name: 'Error', message: stderr },
    unawaitedCalls: {},
  };
}

const size = (event: unknown) => JSON.stringify(event).length;

describe('capRunEvent', () => {
  it('returns an event within the cap unchanged (the same object)', () => {
    const event = blockEnd('out', 'err', null);
    expect(capRunEvent(event)).toBe(event);
  });

  // Large inputs: generous time on a busy machine (the cut itself takes well under a second).
  it('cuts a 126 MB block-end to the cap, keeping a valid event with markers', {
    timeout: 30_000,
  }, () => {
    const huge = 'x'.repeat(126 * 2 ** 20);
    const capped = capRunEvent(blockEnd('short', huge, huge));
    expect(size(capped)).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
    expect(runEventSchema.parse(capped)).toEqual(capped);
    expect(capped).toMatchObject({ type: 'block-end', stdout: 'short' });
    if (capped.type !== 'block-end') throw new Error('unreachable');
    expect(capped.stderr).toMatch(/… \+ \[\d+ chars\.\.\.\]$/);
    expect(capped.stderr.length).toBeGreaterThan(MAX_RUN_EVENT_CHARS / 4);
  });

  it('shortens long arrays too (chunk lengths of a huge array context)', {
    timeout: 30_000,
  }, () => {
    const event: RunEvent = {
      ...base,
      type: 'run-start',
      query: 'q',
      model: 'm',
      context: [{ type: 'array', lengths: Array(1_000_000).fill(123_456), totalLength: 1 }],
      maxIterations: 3,
      maxDepth: 1,
      promptVersion: 'p',
    };
    const capped = capRunEvent(event);
    expect(size(capped)).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
    expect(runEventSchema.parse(capped)).toEqual(capped);
  });

  it('always fits the cap it is given and cuts nothing that fits', () => {
    fc.assert(
      fc.property(
        fc.record({
          stdout: fc.string({ maxLength: 3_000 }),
          stderr: fc.string({ maxLength: 3_000 }),
          finalAnswer: fc.option(fc.string({ maxLength: 3_000 }), { nil: null }),
        }),
        fc.integer({ min: 1_000, max: 8_000 }),
        ({ stdout, stderr, finalAnswer }, maxChars) => {
          const event = blockEnd(stdout, stderr, finalAnswer);
          const capped = capRunEvent(event, maxChars);
          expect(size(capped)).toBeLessThanOrEqual(maxChars);
          expect(runEventSchema.parse(capped)).toEqual(capped);
          if (size(event) <= maxChars) expect(capped).toBe(event);
        },
      ),
    );
  });
});
