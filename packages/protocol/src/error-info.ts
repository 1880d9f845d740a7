import { RlmError } from './rlm-error.js';

/**
 * A JSON-safe `{ code, message }` for events, results and trajectories: an `RlmError` keeps its
 * code; anything else gets code `unknown` and its name in the message. The one conversion every
 * package uses, so one failure reads the same in a run's events and an MCP session's record.
 */
export function errorInfo(error: unknown): { code: string; message: string } {
  if (RlmError.is(error)) return { code: error.code, message: error.message };
  if (error instanceof Error)
    return { code: 'unknown', message: `${error.name}: ${error.message}` };
  return { code: 'unknown', message: String(error) };
}
