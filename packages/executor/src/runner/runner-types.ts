import type { RunRecord, RunStore } from '@rlm/memory';
import type { DriverRef } from '@rlm/prompts';
import type {
  JsonValue,
  LanguageModel,
  ModelPricing,
  ReplLanguage,
  RLMChatCompletion,
  RunSettingsInput,
} from '@rlm/protocol';
import type { TrajectorySink } from '@rlm/trace';
import type { CallCacheStores } from '../cache/open-run-cache.js';
import type { ToolDefinition } from '../config/tool-definition.js';
import type { AnthropicEffort } from '../models/anthropic-params.js';
import type { OutputSchema } from '../output/output-spec.js';
import type { RunEventHandler } from '../run/event-bus.js';

/** What a model id is resolved with: the run's REPL language and, for Anthropic, thinking and effort. */
export interface RunnerModelOptions {
  /** Offline policies write code in it. */
  repl: ReplLanguage;
  thinking?: { type: 'enabled'; budgetTokens: number };
  effort?: AnthropicEffort;
  /**
   * The settings' price, for a resolver whose models take one (offline `testkit:` models bill at
   * it); any other client without a price of its own is priced by the runner afterwards.
   */
  pricing?: ModelPricing;
}

/**
 * Turns a model id into a client. Doors pass one built from `resolveModel` (with the operator's
 * environment) and `@rlm/testkit`'s offline models; it is the only place keys are read.
 */
export type RunnerModelResolver = (id: string, options: RunnerModelOptions) => LanguageModel;

/** Tools that live as long as one run (an MCP server's): opened before it, closed after it. */
export interface RunToolSet {
  tools: Readonly<Record<string, ToolDefinition>>;
  close(): Promise<void>;
}
/** Opens a tool set for one run; the runner closes what it opened, also on failure. */
export type RunToolOpener = (options: { signal?: AbortSignal | undefined }) => Promise<RunToolSet>;

/** The settings fields the runner may name in an error, as a door calls them (`--max-cost`). */
export type RunnerFieldNames = Readonly<
  Partial<Record<'limits.maxCostUsd' | 'pricing' | 'thinkingBudget' | 'effort', string>>
>;

export interface CreateRunnerOptions {
  resolveModel: RunnerModelResolver;
  /** Where runs and their checkpoints are kept; without it nothing can be resumed. */
  runStore?: RunStore | undefined;
  /** Where trajectories go: a directory (`<runId>.jsonl`) or a sink. */
  trajectory?: { dir: string } | TrajectorySink | undefined;
  /** Sandbox placement. @default 'worker' */
  isolation?: 'worker' | 'inline' | undefined;
  /** Names for settings fields in error messages (a CLI says `--max-cost`). */
  fieldNames?: RunnerFieldNames | undefined;
  /**
   * What to do with a cost cap when a model has no known price: refuse the run (the contract's
   * rule) or leave the cap out (a server whose operator default applies to every profile).
   * @default 'refuse'
   */
  unpricedCostCap?: 'refuse' | 'omit' | undefined;
  /**
   * The sub-call cache stores this door has (`sqlite`: the CLI's data directory; `postgres`: the
   * server's database), for settings that turn the cache on. `memory` is made by the runner
   * when a run asks for it and no store is given.
   */
  callCaches?: CallCacheStores | undefined;
}

/** One run as a door hands it over, besides its settings. */
export interface RunInput {
  /** The run id (trajectory file name, resume key). @default crypto.randomUUID() */
  runId?: string | undefined;
  /** The question; without it, the context itself is the prompt. */
  query?: string | undefined;
  context: JsonValue;
  /** Payloads after the first (`context_1`, …). */
  contexts?: readonly JsonValue[] | undefined;
  signal?: AbortSignal | undefined;
  onEvent?: RunEventHandler | undefined;
  /** Host tools for this run (ignored when the settings turn tools off). */
  tools?: Readonly<Record<string, ToolDefinition>> | undefined;
  /** Tool sets to open for this run (MCP servers), after `tools`; a name defined twice is refused. */
  toolSets?: readonly RunToolOpener[] | undefined;
  /** Drivers read from files at the door, after the settings' built-in names. */
  drivers?: readonly DriverRef[] | undefined;
  /** A zod schema for the answer; replaces `settings.outputSchema` (which is JSON Schema). */
  output?: OutputSchema | undefined;
  /** Instructions before the root's system prompt (an agent's layered prompt). */
  systemPromptPrefix?: string | undefined;
  /** Wraps each resolved client (a server answers replayed requests from recorded responses). */
  wrapModel?: ((model: LanguageModel) => LanguageModel) | undefined;
  /** The run started before and stopped before its first checkpoint: run it again as the same run. */
  rerun?: boolean | undefined;
  /** Extra fields recorded with the run in the store (beside `settings`), for the door's resume. */
  record?: Readonly<Record<string, JsonValue>> | undefined;
}

/**
 * What `resume` takes. The checkpoint has the query; `query` and `rerun` matter only when a run
 * with no checkpoint starts over (`withoutCheckpoint: 'rerun'`): the query to ask again, and
 * whether the earlier attempt's start is recorded (so it goes on as the same run). @default rerun true
 */
export type ResumeInput = Omit<RunInput, 'runId'> & {
  /**
   * A run with no checkpoint yet (stopped during its first turn): refuse (`executor.no_checkpoint`)
   * or run it again from its first turn as the same run. @default 'refuse'
   */
  withoutCheckpoint?: 'refuse' | 'rerun' | undefined;
  /** The caller knows no live process holds a run still marked `running` (a killed CLI). */
  orphaned?: boolean | undefined;
  /**
   * The caller decided the run goes on by its own rule (a server's lease-based recovery of a run
   * it owns), so its stored status is not checked again.
   */
  statusChecked?: boolean | undefined;
};

/** The one place a run is made: settings in, an outcome with a text answer out. */
export interface Runner {
  /**
   * Runs to the end. Failures inside the run are its outcome (`status`, `error`); settings that
   * cannot be honoured throw before anything starts.
   * @throws RlmError `config.invalid` (naming the field), `model.auth`, `model.unknown_provider`
   */
  run(settings: RunSettingsInput, input: RunInput): Promise<RLMChatCompletion>;
  /**
   * Continues a stored run from its last checkpoint.
   * @throws RlmError `executor.no_checkpoint`, `executor.not_resumable`, `executor.replay_divergence`
   */
  resume(runId: string, settings: RunSettingsInput, input: ResumeInput): Promise<RLMChatCompletion>;
  /**
   * The stored run if it can be resumed, checked before any context is read or key needed.
   * @throws RlmError `executor.not_resumable` for an unknown or finished run
   */
  findResumable(runId: string, options?: { orphaned?: boolean }): Promise<RunRecord>;
}
