/** @packageDocumentation The `rlm` command line as a library: run it in-process with your own IO and engine. */

// ── Command line ────────────────────────

export type { CliIo, CliPaths, OutputStream } from './cli-io.js';
export {
  EXIT_CODE_BY_KIND,
  EXIT_CODES,
  type ExitCode,
  exitCodeForError,
  exitCodeOf,
} from './exit-code.js';
export { createNodeIo } from './node-io.js';
export { type RunCliOptions, runCli } from './run-cli.js';

// ── Runtime seam ────────────────────────

export { createExecutorEngine, type ExecutorEngineOptions } from './engine/executor-engine.js';
export { resolveCliModel, TESTKIT_PREFIX } from './engine/resolve-cli-model.js';
export type { ResumeRequest, RunEngine, RunRequest } from './engine/run-engine.js';

// ── Configuration ───────────────────────

export { CONFIG_KEYS, type ConfigKeyInfo } from './config/config-keys.js';
export { type CliConfig, cliConfigSchema, DEFAULT_CONFIG } from './config/config-schema.js';
export {
  type ResolveConfigOptions,
  type ResolvedConfig,
  resolveConfig,
} from './config/resolve-config.js';
