import { RlmError } from '@rlm/protocol';

/** A JSON-safe `{ code, message }` for events and results; foreign errors get code `unknown`. */
export function errorInfo(error: unknown): { code: string; message: string } {
  if (RlmError.is(error)) return { code: error.code, message: error.message };
  if (error instanceof Error)
    return { code: 'unknown', message: `${error.name}: ${error.message}` };
  return { code: 'unknown', message: String(error) };
}
