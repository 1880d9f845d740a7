/** @packageDocumentation Benchmarks, scorers, runner and reports for Recursive Language Models: RLM vs base model, solver vs coordinator. */

// ── Tasks ───────────────────────────────

export {
  type EvalTask,
  type EvalTaskInput,
  evalTaskSchema,
  taskMetaSchema,
} from './task/eval-task.js';
export { loadTasks } from './task/load-tasks.js';
export { type ParseTasksOptions, parseTasksJsonl } from './task/parse-tasks-jsonl.js';
export { contextAsText, readTaskContext } from './task/read-task-context.js';

// ── Generators ──────────────────────────

export {
  type AggregateQuestion,
  generateAggregate,
} from './generators/generate-aggregate.js';
export {
  BENCHMARK_NAMES,
  type BenchmarkName,
  benchmarkNameSchema,
  type GenerateBenchmarkOptions,
  generateBenchmark,
} from './generators/generate-benchmark.js';
export { generateMultidoc, type MultidocOptions } from './generators/generate-multidoc.js';
export { generatePairs } from './generators/generate-pairs.js';
export { generateSniah, type SniahOptions } from './generators/generate-sniah.js';
export type { GeneratorOptions } from './generators/generator-options.js';
export { formatSize, parseSize } from './generators/parse-size.js';
export { type SeededRandom, seededRandom } from './generators/seeded-random.js';
export { RARE_LABELS, RECORD_LABELS } from './generators/support-records.js';

// ── Scorers ─────────────────────────────

export { normalizeAnswer } from './scorers/normalize-answer.js';
export {
  parseNumber,
  type Score,
  type ScoreAnswerOptions,
  type ScoreFunction,
  scoreAnswer,
  setF1,
} from './scorers/score-answer.js';
export { type ScorerSpec, type ScorerSpecInput, scorerSpecSchema } from './scorers/scorer-spec.js';

// ── Runner ──────────────────────────────

export type { AttemptOutcome } from './runner/attempt-outcome.js';
export { type EvalProgress, formatDuration, formatProgress } from './runner/eval-progress.js';
export {
  type BaseSystem,
  baseSystemSchema,
  type EvalSystem,
  type EvalSystemInput,
  evalSystemSchema,
  type RlmSystem,
  rlmSystemSchema,
} from './runner/eval-system.js';
export {
  type ClosableModelResolver,
  type CreateModelResolverOptions,
  createModelResolver,
  type ModelResolver,
  type ModelRole,
} from './runner/model-resolver.js';
export { type ResultRow, resultRowSchema, rowKey } from './runner/result-row.js';
export { RESULTS_FILE, readResultRows } from './runner/results-file.js';
export { CHARS_PER_TOKEN, DEFAULT_BASE_CONTEXT_WINDOW } from './runner/run-base-attempt.js';
export {
  DEFAULT_EVAL_CONCURRENCY,
  type EvalBudget,
  type EvalCache,
  type EvalRun,
  type EvalStop,
  type RunEvalOptions,
  runEval,
} from './runner/run-eval.js';

// ── Offline models ──────────────────────

export { BASE_SYSTEM_PROMPT } from './offline/base-prompt.js';
export {
  FAKE_ANTHROPIC_MODEL,
  type FakeServerModel,
  fakeAnthropicModel,
} from './offline/fake-anthropic-model.js';
export {
  DEFAULT_OFFLINE_CONTEXT_WINDOW,
  EVAL_OFFLINE_POLICIES,
  isOfflineModelId,
  OFFLINE_POLICIES,
  OFFLINE_PRICE_PER_MILLION,
  OFFLINE_TRANSPORTS,
  type OfflinePolicyName,
  type OfflineTransport,
  offlineModel,
  offlinePolicy,
  offlinePolicyName,
} from './offline/offline-model.js';
export { type QuestionMeta, recognizeQuestion } from './offline/recognize-question.js';
export { NOT_A_BENCHMARK_QUESTION, referencePolicy } from './offline/reference-policy.js';

// ── ARC ─────────────────────────────────

export {
  type ArcGrid,
  type ArcPair,
  type ArcTaskFile,
  arcGridSchema,
  arcPairSchema,
  arcTaskFileSchema,
  formatGrid,
} from './arc/arc-task-file.js';
export { ARC_QUERY, arcTasksFromFile, loadArcTasks } from './arc/arc-tasks.js';
export {
  ARC_RULES,
  type ArcRule,
  type GeneratedArcFile,
  generateArc,
  generateArcFiles,
} from './arc/generate-arc.js';
export { gridsEqual, parseGrid } from './arc/parse-grid.js';

// ── Reports ─────────────────────────────

export {
  type CompareRunsOptions,
  compareRuns,
  type FlippedTask,
  type RunComparison,
  renderComparison,
  type SystemDelta,
} from './report/compare-runs.js';
export { renderAccuracyChart } from './report/render-accuracy-chart.js';
export {
  NOMINAL_COST_NOTE,
  type RenderReportOptions,
  renderMarkdownReport,
} from './report/render-markdown-report.js';
export {
  describeRunDifferences,
  type RunDifference,
  runDifferences,
} from './report/run-differences.js';
export { passAtK, percentile, wilsonInterval } from './report/statistics.js';
export {
  type EvalSummary,
  type SizePoint,
  type SystemSummary,
  summarizeRows,
} from './report/summarize-rows.js';
export { type SystemChange, systemChanges } from './report/system-changes.js';
export { REPORT_FILES, writeReport } from './report/write-report.js';

// ── Command (what `rlm eval` runs) ──────

export {
  attachDrivers,
  type DriverChoice,
  driverChoiceSchema,
} from './command/driver-choice.js';
export {
  DEFAULT_EVAL_SIZE,
  EVAL_PROGRESS_MODES,
  type EvalCommandOptions,
  type EvalCommandOptionsInput,
  type EvalOptionIssue,
  evalCommandOptionsSchema,
  parseEvalCommandOptions,
  safeParseEvalCommandOptions,
} from './command/eval-command-options.js';
export {
  createProgressWriter,
  PLAIN_PROGRESS_INTERVAL_MS,
  type ProgressWriter,
} from './command/progress-writer.js';
export {
  type CompareCommandOptions,
  runCompareCommand,
} from './command/run-compare-command.js';
export {
  type EvalCommandIo,
  type EvalCommandResult,
  runEvalCommand,
  systemsFrom,
} from './command/run-eval-command.js';
