import type { JsonValue } from '@rlm/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHelperCall } from './helper-arguments.js';
import { quickHelperCall } from './helper-request.js';

const CAPS = { maxChars: 5_000 };
const HELPERS = ['grep', 'find_all', 'count', 'lines', 'chunk', 'nope'];

/** Values near every boundary the schemas draw (types, ranges, names, flags). */
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(
    null,
    true,
    0,
    1,
    -1,
    2,
    50,
    51,
    1.5,
    100_000,
    100_001,
    2 ** 53,
    'x',
    '(',
    'a+',
    'context',
    'context_2',
    'context_x',
    'gi',
    'q',
    '',
  ),
  fc.integer({ min: -3, max: 200 }),
);
const optionKey = fc.constantFrom('flags', 'context', 'max', 'target', 'overlap', 'other');
const options = fc.dictionary(optionKey, scalar, { maxKeys: 3 });
const pattern = fc.oneof(
  scalar,
  fc.record({ source: fc.constantFrom('a', '(', 'b+'), flags: fc.constantFrom('', 'i', 'z') }),
  fc.record({ source: fc.constant('a'), flags: fc.constant('g'), extra: scalar }),
);
const argument: fc.Arbitrary<JsonValue> = fc.oneof(scalar, options, pattern);

type Outcome = { request: unknown } | { error: { code: unknown; message: string } };

function outcome(run: () => unknown): Outcome {
  try {
    return { request: run() };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    return { error: { code, message } };
  }
}

describe('quickHelperCall', () => {
  it('gives exactly what the schemas give for every call it accepts, and declines the rest', () => {
    let answered = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...HELPERS),
        fc.array(argument, { maxLength: 4 }),
        (helper, args) => {
          const quick = outcome(() => quickHelperCall(helper, args, CAPS));
          const full = outcome(() => parseHelperCall(helper, args, CAPS));
          if ('request' in quick && quick.request === undefined) {
            // Declined: only the schemas may answer, and they must have a reason to be asked.
            return;
          }
          answered += 1;
          expect(quick).toEqual(full);
        },
      ),
      { numRuns: 3_000 },
    );
    // The comparison above must have run on a good share of the calls.
    expect(answered).toBeGreaterThan(100);
  });

  it('takes the calls models make without the schemas', () => {
    const calls: [string, JsonValue[]][] = [
      ['count', ['NEEDLE-4242']],
      ['grep', ['error', { context: 2, max: 10 }]],
      ['grep', [{ source: 'a+b', flags: 'i' }, null]],
      ['find_all', ['\\d+', { flags: 'm', target: 1 }]],
      ['lines', [10, 20]],
      ['lines', [5, null, { target: 'context_1' }]],
      ['chunk', [100_000, { overlap: 100 }]],
    ];
    for (const [helper, args] of calls) {
      const quick = quickHelperCall(helper, args, CAPS);
      expect(quick).toBeDefined();
      expect(quick).toEqual(parseHelperCall(helper, args, CAPS));
    }
  });

  it('leaves bad arguments to the schemas, which write the message', () => {
    expect(quickHelperCall('grep', ['a', { context: 51 }], CAPS)).toBeUndefined();
    expect(quickHelperCall('count', ['a', { flags: 'q' }], CAPS)).toBeUndefined();
    expect(quickHelperCall('lines', [0], CAPS)).toBeUndefined();
    expect(quickHelperCall('chunk', [10, { other: 1 }], CAPS)).toBeUndefined();
    expect(quickHelperCall('nope', ['a'], CAPS)).toBeUndefined();
  });

  it('reports a bad pattern as the schemas path does', () => {
    expect(() => quickHelperCall('count', ['('], CAPS)).toThrow(
      expect.objectContaining({ code: 'sandbox.invalid_pattern' }),
    );
  });
});
