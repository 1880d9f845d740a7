// zod-free so `@rlm/protocol/core` can carry it; `runStatusSchema` checks these lists against
// its own options in a test, so a new status cannot be forgotten here.

/** Every status a finished run can have (a run's `status` once it is over). */
export const END_STATUSES = [
  'completed',
  'max_iterations',
  'budget_exceeded',
  'timeout',
  'cancelled',
  'error',
  'interrupted',
] as const;

/**
 * Finished runs that can be continued from their last checkpoint: stopped by Ctrl-C or a cancel,
 * by a budget or their wall time (resumed with a larger one), or by a process that went away. A
 * stored run still marked `running` whose process is gone (killed) can be continued too; see
 * `isResumableStatus`.
 */
export const RESUMABLE_STATUSES = [
  'cancelled',
  'budget_exceeded',
  'timeout',
  'interrupted',
] as const;

export type EndStatus = (typeof END_STATUSES)[number];
export type ResumableStatus = (typeof RESUMABLE_STATUSES)[number];

/** Whether a status is one a run ends with. */
export function isEndStatus(status: string): status is EndStatus {
  return (END_STATUSES as readonly string[]).includes(status);
}

/**
 * Whether a stored run with this status may be resumed: one of `RESUMABLE_STATUSES`, or
 * `running` when the caller knows no live process holds the run (a killed CLI, a dead replica).
 */
export function isResumableStatus(
  status: string,
  { orphaned = false }: { orphaned?: boolean } = {},
): boolean {
  return (
    (RESUMABLE_STATUSES as readonly string[]).includes(status) || (orphaned && status === 'running')
  );
}
