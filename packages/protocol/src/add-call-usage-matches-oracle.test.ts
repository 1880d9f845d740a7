import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergedAddCallUsage } from './__fixtures__/merged-add-call-usage.js';
import { addCallUsage, type RecordCallInput, type UsageSummary } from './usage.js';

// addCallUsage charges every model call (once per scope up the run tree) and now builds its
// summary directly instead of merging a one-model summary in; the result must not change.
const RUNS = { numRuns: 3000 };

/** Model ids, often the same few, and keys that behave oddly on plain objects. */
const modelId = fc.oneof(
  fc.constantFrom('anthropic/claude', 'openai/gpt', 'bench/root', 'bench/sub'),
  fc.constantFrom('__proto__', 'constructor', 'toString', '1', '0', '', 'calls'),
  fc.string({ maxLength: 5 }),
);

const count = fc.oneof(
  fc.nat({ max: 1_000_000 }),
  fc.constantFrom(0, -0, 1, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: false }),
);

const modelUsage = fc.record({
  calls: count,
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  costUsd: count,
});

const summary: fc.Arbitrary<UsageSummary> = fc
  .array(fc.tuple(modelId, modelUsage), { maxLength: 5 })
  .map((entries) => ({ models: Object.fromEntries(entries) }));

const call: fc.Arbitrary<RecordCallInput> = fc
  .record({
    model: modelId,
    usage: fc.record({
      inputTokens: count,
      outputTokens: count,
      cacheReadTokens: count,
      cacheWriteTokens: count,
    }),
    costUsd: fc.option(count, { nil: undefined }),
  })
  .map(({ costUsd, ...rest }) => (costUsd === undefined ? rest : { ...rest, costUsd }));

/** The summary as plain data, key order and the prototype of `models` included. */
function shape(value: UsageSummary): unknown {
  return {
    prototype: Object.getPrototypeOf(value.models),
    entries: Object.entries(value.models).map(([name, usage]) => [name, Object.entries(usage)]),
  };
}

describe('addCallUsage against its earlier form', () => {
  it('gives the same summary, key order included, for any summary and call', () => {
    fc.assert(
      fc.property(summary, call, (before, added) => {
        expect(shape(addCallUsage(before, added))).toStrictEqual(
          shape(mergedAddCallUsage(before, added)),
        );
      }),
      RUNS,
    );
  });

  it('never shares a model object with its input', () => {
    fc.assert(
      fc.property(summary, call, (before, added) => {
        const after = addCallUsage(before, added);
        for (const usage of Object.values(after.models)) {
          expect(Object.values(before.models)).not.toContain(usage);
        }
      }),
      RUNS,
    );
  });
});
