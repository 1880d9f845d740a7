import type { RunRecord, RunStore } from '@rlm/memory';
import { isResumableStatus, RlmError } from '@rlm/protocol';

/**
 * The stored run `runId` if it can be continued: one of `RESUMABLE_STATUSES`, or `running` when
 * the caller knows no live process holds it (`orphaned`). Checked before any context is read or
 * any key needed.
 *
 * @throws RlmError `executor.not_resumable` for an unknown run (`status` null) or one that ended
 *   in a status that cannot be continued
 */
export async function findResumableRun(
  runStore: RunStore | undefined,
  runId: string,
  { orphaned = false }: { orphaned?: boolean } = {},
): Promise<RunRecord> {
  const record = await runStore?.getRun(runId);
  if (record === undefined || !isResumableStatus(record.status, { orphaned })) {
    throw new RlmError({
      code: 'executor.not_resumable',
      message:
        record === undefined
          ? `There is no stored run ${runId} to resume.`
          : `Run ${runId} cannot be resumed: it ended ${record.status}; only a run that was cancelled, stopped by a budget or its wall time, or interrupted can be continued.`,
      details: { runId, status: record?.status ?? null },
    });
  }
  return record;
}
