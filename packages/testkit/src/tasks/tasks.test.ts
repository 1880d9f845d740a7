import { describe, expect, it } from 'vitest';
import { labelledRecords } from './labelled-records.js';
import { needleHaystack } from './needle-haystack.js';
import { seededRandom } from './seeded-random.js';

describe('task generators', () => {
  it('needleHaystack is deterministic, sized, and hides exactly one needle line', () => {
    const task = needleHaystack({ chars: 50_000, seed: 3 });
    expect(needleHaystack({ chars: 50_000, seed: 3 })).toEqual(task);
    expect(task.context).toHaveLength(50_000);
    expect(task.context.split('\n')).toContain(task.needle);
    expect(task.context.match(/magic number/g)).toHaveLength(1);
    expect(task.context.indexOf(task.needle)).toBe(task.needleOffset);
    expect(needleHaystack({ chars: 50_000, seed: 4 }).answer).not.toBe(task.answer);
  });

  it('needleHaystack honours the requested depth', () => {
    const early = needleHaystack({ chars: 10_000, depth: 0 });
    const late = needleHaystack({ chars: 10_000, depth: 1 });
    expect(early.needleOffset).toBe(0);
    expect(late.needleOffset).toBeGreaterThan(9_000);
  });

  it('labelledRecords counts what it generates', () => {
    const task = labelledRecords({ count: 50, seed: 8 });
    expect(task.records).toHaveLength(50);
    const counted: Record<string, number> = {};
    for (const record of task.records) counted[record.label] = (counted[record.label] ?? 0) + 1;
    expect(task.counts).toMatchObject(counted);
    expect(task.context.split('\n')).toHaveLength(50);
  });

  it('seededRandom repeats per seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect([a.next(), a.int(1, 6), a.pick(['x', 'y'])]).toEqual([
      b.next(),
      b.int(1, 6),
      b.pick(['x', 'y']),
    ]);
  });
});
