import type { JsonValue } from '@rlm/protocol';
import {
  checkHelperArguments,
  type HelperArguments,
  type HelperRequest,
  helperArgumentSchemas,
  helperRequest,
} from '@rlm/sandbox/context-ops';
import { z } from 'zod';
import { pythonPatternToJs } from './python-pattern.js';

/** Most results a helper returns unless `max` says otherwise (`chunk` included, in Python). */
export const DEFAULT_HELPER_MAX_ITEMS = 1_000;

/** The scaffold sends a pattern as its Python source and flag letters (from `re` flags). */
const PYTHON_SCHEMAS = helperArgumentSchemas({
  pattern: z
    .object({ source: z.string(), flags: z.string().regex(/^[aiLmsux]*$/, 'unknown flag letter') })
    .strict(),
});

/**
 * Checks a helper call's arguments (as the Python scaffold sends them) and turns them into a
 * scan: the shared checks, with the Python pattern translated to the JavaScript one the host
 * scans with.
 *
 * @throws RlmError `sandbox.invalid_value` (bad arguments), `sandbox.invalid_pattern`
 */
export function parseHelperCall(
  helper: string,
  args: JsonValue[],
  maxChars: number,
): HelperRequest {
  const checked = checkHelperArguments(helper, args, PYTHON_SCHEMAS);
  const translated: HelperArguments =
    'pattern' in checked
      ? { ...checked, pattern: pythonPatternToJs(checked.pattern.source, checked.pattern.flags) }
      : checked;
  return helperRequest(translated, { maxChars, chunkMaxItems: DEFAULT_HELPER_MAX_ITEMS });
}
