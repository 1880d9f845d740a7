/** @packageDocumentation The trajectory format's one owner: reading JSONL, headers, recorded exchanges, the run tree and its HTML view. */

// ── JSONL ───────────────────────────────

export {
  type JsonLineError,
  type JsonLinesResult,
  type ParseJsonLinesOptions,
  parseJsonLines,
  safeParseJsonLines,
} from './parse-json-lines.js';

// ── Trajectories ────────────────────────

export { type ExpandTrajectoryOptions, expandTrajectory } from './expand-trajectory.js';
export { groupedLines, groupLines } from './line-group.js';
export {
  parseTrajectory,
  readTrajectory,
  safeParseTrajectory,
  safeParseTrajectoryLines,
  trajectoryEvents,
} from './read-trajectory.js';
export {
  ExchangeEncoder,
  type ExchangeInput,
  type ModelExchangeRecord,
  type RecordedExchange,
  recordedExchanges,
} from './recorded-exchanges.js';
export { type ResponseReplay, replayingModel, responseReplay } from './response-replay.js';
export {
  isRlmpaperLog,
  type RlmpaperBlock,
  type RlmpaperCall,
  type RlmpaperIteration,
  type RlmpaperLog,
  type RlmpaperLogResult,
  type RlmpaperMetadata,
  rlmpaperIterationSchema,
  rlmpaperMetadataSchema,
  safeParseRlmpaperLog,
} from './rlmpaper-log.js';
export { RLMPAPER_RUN_ID, rlmpaperLogRecords } from './rlmpaper-log-records.js';
export {
  type ContextDeclaration,
  contextDeclarationSchema,
  type GroupLine,
  groupLineSchema,
  type PackedLine,
  type PackedPart,
  packedLineSchema,
  packedPartSchema,
  type SingleTrajectoryLine,
  type StoredTrajectoryLine,
  singleTrajectoryLineSchema,
  storedTrajectoryLineSchema,
} from './stored-line.js';
export {
  findTrajectoryHeader,
  type TrajectoryHeader,
  type TrajectoryHeaderInput,
  trajectoryHeader,
  trajectoryReplLanguage,
} from './trajectory-header.js';
export {
  DEFAULT_PACK_MIN_CHARS,
  DEFAULT_PACK_MIN_TEXT_CHARS,
  TrajectoryPacker,
  type TrajectoryPackerOptions,
} from './trajectory-packer.js';

// ── Writing trajectories ────────────────
// The writer sits beside its reader: runs (through @rlm/executor) and MCP sessions record through it.

export {
  GROUP_MAX_CHARS,
  GROUP_MAX_MS,
  jsonlFileSink,
} from './jsonl-file-sink.js';
export { REDACTED, redactSecrets, redactText } from './redact-secrets.js';
export {
  DEFAULT_MAX_RECORDED_MESSAGE_CHARS,
  recordedText,
  TrajectoryRecorder,
} from './trajectory-recorder.js';
export { memoryTrajectorySink, type TrajectorySink } from './trajectory-sink.js';

// ── Trace view ──────────────────────────

export { formatCost, formatCount, formatDuration, linesText } from './format-units.js';
export {
  escapeHtml,
  type HtmlFragment,
  type HtmlValue,
  html,
  joinHtml,
  trustedHtml,
} from './html.js';
export { type RenderRunOptions, renderRunHtml } from './render-run-html.js';
export { type RenderTraceHtmlOptions, renderTraceHtml } from './render-trace-html.js';
export { subcallMarks } from './subcall-marks.js';
export { TRACE_CSS } from './trace-styles.js';
export {
  type TraceBlock,
  type TraceCacheHit,
  type TraceEscalation,
  type TraceRun,
  type TraceSubcall,
  TraceTree,
  type TraceTurn,
  type TraceUsage,
} from './trace-tree.js';
export {
  type TraceOutcome,
  type TraceViewModel,
  type TraceViewNode,
  traceViewModel,
} from './trace-view-model.js';
export { TRACE_VIEWER_JS } from './trace-viewer-script.generated.js';
