import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildExecutorSections } from './build-executor-sections.js';

const item = fc.record({
  text: fc
    .string({ unit: fc.constantFrom('a', 'b', ' ', '\n'), minLength: 1, maxLength: 80 })
    .filter((text) => text.trim().length > 0),
  source: fc.constantFrom('s1', 's2', 'memory#3'),
  priority: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
});

const input = fc.record({
  goals: fc.array(item, { maxLength: 4 }),
  conversation: fc.array(item, { maxLength: 6 }),
  episodic: fc.array(item, { maxLength: 6 }),
  semantic: fc.array(item, { maxLength: 4 }),
  maxChars: fc.integer({ min: 400, max: 2_000 }),
});

describe('buildExecutorSections trimming (property)', () => {
  it('fits the budget, drops only lower priorities than it keeps, and repeats exactly', () => {
    fc.assert(
      fc.property(input, (drawn) => {
        const full = { role: 'Agent role.', task: 'The task.', ...drawn };
        const result = buildExecutorSections(full);
        expect(result.chars).toBeLessThanOrEqual(drawn.maxChars);
        expect(result.text.length).toBe(result.chars);
        const kept = result.sections.flatMap((section) => section.items);
        const highestDropped = Math.max(-1, ...result.dropped.map((dropped) => dropped.priority));
        for (const keptItem of kept)
          expect(keptItem.priority).toBeGreaterThanOrEqual(highestDropped);
        expect(buildExecutorSections(full)).toEqual(result);
      }),
    );
  });
});
