import { z } from 'zod';
import type { FromSupervisor, RawBlockResult } from '../child/child-messages.js';

/**
 * What an interpreter process may send. Model code runs in that process, so its messages are
 * checked like any other untrusted input before the host acts on them.
 */
export const fromSupervisorSchema = z.union([
  z.object({ type: z.literal('loaded'), snapshot: z.instanceof(Uint8Array).nullable() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
  z.object({ type: z.literal('ready') }),
  z.object({
    type: z.literal('reply'),
    id: z.number().int(),
    ok: z.literal(true),
    value: z.unknown(),
  }),
  z.object({
    type: z.literal('reply'),
    id: z.number().int(),
    ok: z.literal(false),
    message: z.string(),
  }),
  z.object({ type: z.literal('hostCall'), callId: z.number().int(), request: z.string() }),
  z.object({ type: z.literal('hostCancel'), callId: z.number().int() }),
]) satisfies z.ZodType<FromSupervisor>;

export const rawBlockResultSchema = z.object({
  stdout: z.string(),
  stderr: z.string(),
  droppedStdout: z.number().int().nonnegative(),
  droppedStderr: z.number().int().nonnegative(),
  error: z
    .object({
      name: z.string(),
      message: z.string(),
      line: z.number().int().positive().nullable(),
      traceback: z.string(),
    })
    .nullable(),
  locals: z.record(z.string(), z.string()),
  finalAnswer: z.string().nullable(),
  cleared: z.array(z.string()),
  stop: z.enum(['cpu', 'wall', 'aborted']).nullable(),
  lost: z.object({ reason: z.enum(['unresponsive', 'fatal']), detail: z.string() }).nullable(),
}) satisfies z.ZodType<RawBlockResult>;
