/**
 * @packageDocumentation The context helpers (`grep`, `find_all`, `count`, `lines`, `chunk`) as
 * both REPLs run them on the host: `@rlm/sandbox/context-ops`. The one implementation the
 * JavaScript sandbox and `@rlm/sandbox-python` share; each REPL supplies only how its scaffold
 * passes arguments (`parseCall`) and which offsets it indexes by (`codePoints`). Importing it
 * loads no QuickJS.
 */

export { CodePointOffsets } from './code-point-offsets.js';
export {
  CONTEXT_HELPER_NAMES,
  ContextScanner,
  type ContextScannerOptions,
  DECODE_AHEAD_MAX_CHARS,
  type HelperCallParser,
  PRESTART_SCAN_WORKER_MIN_CHARS,
} from './context-scanner.js';
export {
  type CheckedArguments,
  checkHelperArguments,
  type HelperArgumentSchemas,
  helperArgumentSchemas,
  type PatternArguments,
} from './helper-arguments.js';
export {
  DEFAULT_CHUNK_MAX_ITEMS,
  DEFAULT_HELPER_MAX_ITEMS,
  type HelperArguments,
  type HelperCaps,
  type HelperPattern,
  type HelperRequest,
  helperRequest,
} from './helper-request.js';
export type { ScanOperation } from './scan-messages.js';
export {
  type ChunkBounds,
  chunkBounds,
  countMatches,
  type FindAllMatch,
  type FindAllResult,
  findAll,
  type GrepLine,
  type GrepResult,
  globalPattern,
  grep,
  lineRange,
  lineStarts,
  MAX_HELPER_ITEMS,
  type ResultCaps,
} from './scan-operations.js';
