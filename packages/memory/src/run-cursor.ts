import { RlmError } from '@rlm/protocol';

/** The position after the last run of a page (runs are ordered by `createdAt`, then `id`, descending). */
export interface RunCursor {
  createdAt: number;
  id: string;
}

/** An opaque, URL-safe cursor string. */
export function encodeRunCursor(cursor: RunCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/** @throws RlmError `protocol.invalid_message` for a string `encodeRunCursor` did not produce */
export function decodeRunCursor(cursor: string): RunCursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the typed error below: the cause is always "not our cursor".
  }
  throw new RlmError({
    code: 'protocol.invalid_message',
    message: 'cursor: expected the nextCursor of a previous listRuns page',
    details: { issues: ['cursor: not a listRuns cursor'] },
  });
}

/** True when a run sorts after the cursor (so belongs to the next page). */
export function isAfterCursor(run: RunCursor, cursor: RunCursor): boolean {
  return (
    run.createdAt < cursor.createdAt || (run.createdAt === cursor.createdAt && run.id < cursor.id)
  );
}
