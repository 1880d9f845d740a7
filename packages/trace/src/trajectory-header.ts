import {
  DEFAULT_REPL_LANGUAGE,
  type JsonValue,
  type ReplLanguage,
  TRAJECTORY_VERSION,
  type TrajectoryRecord,
} from '@rlm/protocol';

/** The first line of a trajectory. */
export type TrajectoryHeader = Extract<TrajectoryRecord, { kind: 'header' }>;

/** What a trajectory header says about its run. */
export interface TrajectoryHeaderInput {
  /** The root run's id. */
  runId: string;
  /** When the run was created, in epoch milliseconds. */
  createdAt: number;
  /** The run's configuration, with secrets already removed. */
  config: Record<string, JsonValue>;
  /** The root's REPL language; left out of the header when not given (readers take JavaScript). */
  repl?: ReplLanguage | undefined;
}

/**
 * The header record of a trajectory, stamped with the format's `TRAJECTORY_VERSION`: the only
 * place a header is made, so every writer (the executor's recorder, the server's event-log
 * fallback) writes the same version.
 *
 * @example
 * sink.write(trajectoryHeader({ runId, createdAt: Date.now(), config: { model: 'anthropic/…' } }));
 */
export function trajectoryHeader({
  runId,
  createdAt,
  config,
  repl,
}: TrajectoryHeaderInput): TrajectoryHeader {
  return {
    kind: 'header',
    version: TRAJECTORY_VERSION,
    runId,
    createdAt: new Date(createdAt).toISOString(),
    ...(repl === undefined ? {} : { repl }),
    config,
  };
}

/**
 * The REPL language a trajectory's root ran: its header's `repl`, else its root `run-start`'s
 * (a header written without one, such as a server's event-log export), else JavaScript (the only
 * language before trajectories recorded one).
 */
export function trajectoryReplLanguage(records: readonly TrajectoryRecord[]): ReplLanguage {
  const header = findTrajectoryHeader(records)?.repl;
  if (header !== undefined) return header;
  for (const record of records) {
    if (record.kind === 'event' && record.event.type === 'run-start' && record.event.depth === 0) {
      return record.event.repl ?? DEFAULT_REPL_LANGUAGE;
    }
  }
  return DEFAULT_REPL_LANGUAGE;
}

/** The header of a trajectory, if it has one. */
export function findTrajectoryHeader(
  records: readonly TrajectoryRecord[],
): TrajectoryHeader | undefined {
  return records.find((record): record is TrajectoryHeader => record.kind === 'header');
}
