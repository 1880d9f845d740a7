import { formatSize } from './parse-size.js';

/** What every generator takes. */
export interface GeneratorOptions {
  /** Context length in characters: line-based contexts are at least this long (and about one line more), documents about this long. */
  size: number;
  /** @default 1 */
  seed?: number;
  /** Tasks to generate at this size. @default 1 */
  count?: number;
}

/** A task id that says where the task came from: `sniah-128k-s1-0`. */
export function taskId({
  benchmark,
  size,
  seed,
  index,
}: {
  benchmark: string;
  size: number;
  seed: number;
  index: number;
}): string {
  return `${benchmark}-${formatSize(size)}-s${seed}-${index}`;
}

/**
 * A seed for one task, mixed from the run seed, the size and the task index so tasks at
 * different sizes are unrelated but each is reproducible.
 */
export function taskSeed({
  seed,
  size,
  index,
}: {
  seed: number;
  size: number;
  index: number;
}): number {
  let hash = 2_166_136_261;
  for (const part of [seed, size, index]) {
    hash = Math.imul(hash ^ (part >>> 0), 16_777_619);
    hash = Math.imul(hash ^ Math.floor(part / 4_294_967_296), 16_777_619);
  }
  return hash >>> 0;
}
