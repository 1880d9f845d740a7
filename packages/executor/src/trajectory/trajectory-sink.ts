import type { TrajectoryRecord } from '@rlm/protocol';

/**
 * Where a run tree's trajectory goes, one record at a time, in order. `write` is called
 * synchronously as things happen so a crash leaves a readable prefix; `close` once at the end.
 */
export interface TrajectorySink {
  write(record: TrajectoryRecord): void;
  close(): Promise<void>;
  /** The file written, when there is one (reported as `trajectoryPath`). */
  readonly path?: string | undefined;
}

/** A sink that keeps records in memory (for tests, replay and servers that store them elsewhere). */
export function memoryTrajectorySink(): TrajectorySink & { readonly records: TrajectoryRecord[] } {
  const records: TrajectoryRecord[] = [];
  return {
    records,
    write(record) {
      records.push(record);
    },
    async close() {},
  };
}
