import { describe, expect, it } from 'vitest';
import { BlockTable } from './block-table.js';

describe('BlockTable', () => {
  it('finds each hash where it was first added and marks hashes added again as repeated', () => {
    const table = new BlockTable(1_000);
    for (let block = 0; block < 1_000; block++) table.add(block * 7919 - 500_000, 1, block * 256);
    table.add(-500_000, 2, 9);
    expect(table.size).toBe(1_000);
    for (let block = 0; block < 1_000; block++) {
      const slot = table.find(block * 7919 - 500_000);
      expect(slot).not.toBe(-1);
      expect([table.context(slot), table.offset(slot)]).toEqual([1, block * 256]);
      expect(table.repeated(slot)).toBe(block === 0);
    }
    expect(table.find(123)).toBe(-1);
  });

  it('keeps every hash apart in a table filled to its limit (linear probing)', () => {
    const table = new BlockTable(8);
    const hashes = [0, 2 ** 28, 2 ** 29, -(2 ** 30), 1, -1, 77, 2 ** 31 - 1];
    for (const [at, hash] of hashes.entries()) table.add(hash, 0, at);
    expect(hashes.map((hash) => table.offset(table.find(hash)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
