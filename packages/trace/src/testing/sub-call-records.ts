import type { TrajectoryRecord } from '@rlm/protocol';

export interface SubCallShape {
  /** The call's number within run `r` (its id is `r:<call>`). */
  call: number;
  prompt: string;
  at: number;
  inputTokens: number;
  /** Left out of the response when undefined. */
  costUsd?: number;
  /** Whether a `subcall-end` event follows the exchange. */
  ended: boolean;
}

/** The records an `llm_query` of run `r` leaves: its start, its exchange and (when `ended`) its end. */
export function subCallRecords(shape: SubCallShape): TrajectoryRecord[] {
  const { call, prompt, at, inputTokens, costUsd, ended } = shape;
  const base = { v: 1 as const, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0, at };
  const callId = `r:${call}`;
  const records: TrajectoryRecord[] = [
    {
      kind: 'event',
      event: {
        ...base,
        type: 'subcall-start',
        callId,
        kind: 'llm',
        model: 'm',
        promptPreview: prompt.slice(0, 20),
      },
    },
    {
      kind: 'model-exchange',
      runId: 'r',
      callId,
      request: { messages: [{ role: 'user', content: prompt }], messagesFrom: 0 },
      response: {
        text: 'billing',
        usage: { inputTokens, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        ...(costUsd === undefined ? {} : { costUsd }),
        stopReason: 'end_turn',
        model: 'm',
      },
    },
  ];
  if (ended) {
    records.push({
      kind: 'event',
      event: {
        ...base,
        type: 'subcall-end',
        callId,
        kind: 'llm',
        ok: true,
        durationMs: 1,
        responsePreview: 'billing',
      },
    });
  }
  return records;
}
