/** A small deterministic random source: the same seed always yields the same sequence. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<TItem>(items: readonly TItem[]): TItem;
  /** A new array with the items in a seeded order. */
  shuffle<TItem>(items: readonly TItem[]): TItem[];
}

/**
 * Creates a seeded random source (mulberry32: 32-bit state, fast, good enough for test data;
 * never for anything secret).
 */
export function seededRandom(seed: number): SeededRandom {
  let state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError('pick() needs a non-empty list');
      return item;
    },
    shuffle: (items) => {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = int(0, index);
        [copy[index], copy[other]] = [
          copy[other] as (typeof copy)[number],
          copy[index] as (typeof copy)[number],
        ];
      }
      return copy;
    },
  };
}
