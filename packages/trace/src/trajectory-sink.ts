import type { TrajectoryRecord } from '@rlm/protocol';
import type { StoredTrajectoryLine } from './stored-line.js';

/**
 * Where a run tree's trajectory goes, one record at a time, in order. `write` is called
 * synchronously as things happen so a crash leaves a readable prefix; `close` once at the end.
 */
export interface TrajectorySink {
  write(record: TrajectoryRecord): void;
  /**
   * Writes a line of the packed format (`@rlm/trace`'s `TrajectoryPacker`: slices of the run's
   * contexts as references, long texts once). A sink with it gets packed lines instead of
   * `write`, each with the record it stands for; one without it gets every record whole (stores
   * that keep records as such).
   */
  writeLine?(line: StoredTrajectoryLine, record: TrajectoryRecord): void;
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
