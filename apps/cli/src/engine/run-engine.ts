import type { OutputSchema, ToolDefinition } from '@rlm/executor';
import type { McpServerSpec } from '@rlm/mcp';
import type { DriverRef } from '@rlm/prompts';
import type { JsonValue, RLMChatCompletion, RunEvent, RunSettings } from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';

/** Everything one `rlm run` hands to the runtime. */
export interface RunRequest {
  /** The id the run gets (its trajectory file is `<runId>.jsonl`; `rlm resume` takes it). */
  runId: string;
  query: string;
  /** One value per `--context`; empty when the query is the whole prompt. */
  contexts: JsonValue[];
  config: CliConfig;
  /**
   * The run contract when the door computed it already (`rlm mcp`: the configuration with a
   * client's allowed choices on top); else it is derived from `config`.
   */
  settings?: RunSettings | undefined;
  /** Built-in driver names and drivers parsed from files. */
  drivers: DriverRef[];
  /** Host tools from the `--tool` modules (none when `config.tools` is off). */
  tools: Record<string, ToolDefinition>;
  /**
   * MCP servers (`--mcp`, `--mcp-url`) whose tools join `tools`: the engine connects before the
   * run and closes the connections when it ends.
   */
  mcpServers?: readonly McpServerSpec[];
  /** `--mcp-prefix`: put before the REPL name of every tool of `mcpServers`. */
  mcpPrefix?: string;
  /**
   * `--output-schema`: the answer must match it, and the completion's `answer` is its JSON text.
   * A resumed run without one keeps the schema its checkpoint recorded.
   */
  output?: OutputSchema;
  trajectoryDir: string;
  /**
   * The SQLite file the run is recorded in (with `config` under `cli`, so `rlm resume` can reuse
   * it), with a checkpoint after each root turn.
   */
  runStorePath: string;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  onEvent(event: RunEvent): void;
}

/** Everything `rlm resume` hands to the runtime: a run request with a run id instead of a query. */
export interface ResumeRequest extends Omit<RunRequest, 'query'> {
  runId: string;
}

/** A stored run that `rlm resume` may continue: how it ended and the configuration it ran with. */
export interface ResumableRun {
  runId: string;
  /** `running` (killed), `cancelled`, `budget_exceeded`, `timeout` or `interrupted`. */
  status: string;
  /** The run's recorded configuration (model ids, limits, budgets), as the executor stored it. */
  config: Readonly<Record<string, JsonValue>>;
}

/**
 * The seam between the command line and the runtime: `rlm run` builds a `RunRequest`, the engine
 * runs it and returns the completion (also when cancelled or out of budget). The real engine
 * composes @rlm/executor; keeping the seam small keeps `run-command.ts` about the terminal.
 */
export interface RunEngine {
  run(request: RunRequest): Promise<RLMChatCompletion>;
  /**
   * The run `runId` recorded in the store at `runStorePath`, if it can be resumed. Checked first,
   * before any context is read or any credential is needed.
   * @throws RlmError `cli.usage` for an unknown run or one that already finished
   */
  findResumable(runId: string, runStorePath: string): Promise<ResumableRun>;
  /**
   * Continues an interrupted run from its last checkpoint in `request.runStorePath`: checks the
   * contexts against the checkpoint, then resolves the models (credentials), then runs.
   * @throws RlmError `cli.usage` for a run with no completed turn or contexts that are not the
   *   recorded ones; `model.auth` for a missing key
   */
  resume(request: ResumeRequest): Promise<RLMChatCompletion>;
}
