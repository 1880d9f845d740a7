import { ANTHROPIC_EFFORTS, DEFAULT_ESCALATE_AFTER_ERRORS } from '@rlm/executor/defaults';
import { PROMPT_MODES } from '@rlm/prompts';
import { CACHE_SCOPES, type ConfigKey, PROGRESS_MODES } from './config-schema.js';
import { REPL_KEY } from './repl-key.js';

/** How a key is written outside a config file, and how its text turns into a value. */
export interface ConfigKeyInfo {
  /** Environment variable, e.g. `RLM_MAX_DEPTH`. */
  env: string;
  /** Long flag, e.g. `--max-depth`. */
  flag: string;
  kind: 'string' | 'number' | 'list' | 'boolean';
  description: string;
  /** Every value the key takes, for help and shell completion (the schema still checks them). */
  values?: readonly string[];
}

/** One row per key: the only place that names env variables and flags, so they cannot drift apart. */
export const CONFIG_KEYS = {
  model: { env: 'RLM_MODEL', flag: '--model', kind: 'string', description: 'root model id' },
  subModel: {
    env: 'RLM_SUB_MODEL',
    flag: '--sub-model',
    kind: 'string',
    description: 'model for sub-calls (defaults to the root model)',
  },
  taskModel: {
    env: 'RLM_TASK_MODEL',
    flag: '--task-model',
    kind: 'string',
    description: 'coordinator mode: model for background tasks (defaults to the sub-model)',
  },
  escalate: {
    env: 'RLM_ESCALATE',
    flag: '--escalate',
    kind: 'list',
    description:
      'a model of the escalation ladder, cheapest first: a child stuck on errors or out of turns without an answer runs again once on the next one',
  },
  escalateAfterErrors: {
    env: 'RLM_ESCALATE_AFTER_ERRORS',
    flag: '--escalate-after-errors',
    kind: 'number',
    description: `with --escalate: failing turns in a row after which a child escalates (default ${DEFAULT_ESCALATE_AFTER_ERRORS})`,
  },
  maxDepth: {
    env: 'RLM_MAX_DEPTH',
    flag: '--max-depth',
    kind: 'number',
    description: 'recursion depth for rlm_query children',
  },
  maxIterations: {
    env: 'RLM_MAX_ITERATIONS',
    flag: '--max-iterations',
    kind: 'number',
    description: 'turns per run before the model must answer',
  },
  maxTokens: {
    env: 'RLM_MAX_TOKENS',
    flag: '--max-tokens',
    kind: 'number',
    description: 'token budget for the whole run tree',
  },
  maxCostUsd: {
    env: 'RLM_MAX_COST_USD',
    flag: '--max-cost',
    kind: 'number',
    description: 'cost budget in US dollars',
  },
  inputPricePerMTok: {
    env: 'RLM_INPUT_PRICE',
    flag: '--input-price',
    kind: 'number',
    description: 'USD per million input tokens, for a model whose price rlm does not know',
  },
  outputPricePerMTok: {
    env: 'RLM_OUTPUT_PRICE',
    flag: '--output-price',
    kind: 'number',
    description: 'USD per million output tokens, for a model whose price rlm does not know',
  },
  thinkingBudget: {
    env: 'RLM_THINKING_BUDGET',
    flag: '--thinking-budget',
    kind: 'number',
    description:
      'anthropic/ models: extended thinking with this many tokens (>= 1024), billed as output',
  },
  effort: {
    env: 'RLM_EFFORT',
    flag: '--effort',
    kind: 'string',
    description: `anthropic/ models: effort (${ANTHROPIC_EFFORTS.slice(0, -1).join(', ')} or ${ANTHROPIC_EFFORTS.at(-1)})`,
  },
  maxWallTimeMs: {
    env: 'RLM_MAX_WALL_TIME_MS',
    flag: '--max-wall-time-ms',
    kind: 'number',
    description: 'wall-time budget in milliseconds',
  },
  maxSubcalls: {
    env: 'RLM_MAX_SUBCALLS',
    flag: '--max-subcalls',
    kind: 'number',
    description: 'sub-call budget (llm_query and rlm_query)',
  },
  maxConsecutiveErrors: {
    env: 'RLM_MAX_CONSECUTIVE_ERRORS',
    flag: '--max-consecutive-errors',
    kind: 'number',
    description: 'failing turns in a row before the run stops',
  },
  blockTimeoutMs: {
    env: 'RLM_BLOCK_TIMEOUT_MS',
    flag: '--block-timeout-ms',
    kind: 'number',
    description: 'wall time per code block, sub-calls included',
  },
  mode: {
    env: 'RLM_MODE',
    flag: '--mode',
    kind: 'string',
    description:
      'root prompt mode: solver or coordinator (coordinator raises a default depth to 2)',
    values: PROMPT_MODES,
  },
  ...REPL_KEY,
  drivers: {
    env: 'RLM_DRIVERS',
    flag: '--driver',
    kind: 'list',
    description: 'a driver for the root prompt: a built-in name or a markdown file',
  },
  tools: {
    env: 'RLM_TOOLS',
    flag: '--tools',
    kind: 'boolean',
    description:
      'host tools on (default) or off: --no-tools removes the context helpers and tool modules',
  },
  toolModules: {
    env: 'RLM_TOOL_MODULES',
    flag: '--tool',
    kind: 'list',
    description: 'an ES module of host tools ({ name: { description, call } }) the model can call',
  },
  trajectoryDir: {
    env: 'RLM_TRAJECTORY_DIR',
    flag: '--trajectory-dir',
    kind: 'string',
    description: 'directory for trajectory files',
  },
  runStore: {
    env: 'RLM_RUN_STORE',
    flag: '--run-store',
    kind: 'string',
    description: 'SQLite file of runs and checkpoints, for rlm resume',
  },
  cache: {
    env: 'RLM_CACHE',
    flag: '--cache',
    kind: 'boolean',
    description:
      'answer repeated identical sub-calls from a cache in the run store (shared by every run on this machine), at no cost',
  },
  cacheScope: {
    env: 'RLM_CACHE_SCOPE',
    flag: '--cache-scope',
    kind: 'string',
    description:
      'with --cache: which calls share answers: run (one invocation), tree (one run tree) or shared (every run, the default)',
    values: CACHE_SCOPES,
  },
  cacheTtlMs: {
    env: 'RLM_CACHE_TTL_MS',
    flag: '--cache-ttl-ms',
    kind: 'number',
    description: 'with --cache: cached answers older than this many milliseconds are not used',
  },
  cacheIncludeSampled: {
    env: 'RLM_CACHE_INCLUDE_SAMPLED',
    flag: '--cache-include-sampled',
    kind: 'boolean',
    description: 'with --cache: cache calls sent with a temperature above 0 too',
  },
  maxContextBytes: {
    env: 'RLM_MAX_CONTEXT_BYTES',
    flag: '--max-context-bytes',
    kind: 'number',
    description: 'largest context rlm run loads',
  },
  progress: {
    env: 'RLM_PROGRESS',
    flag: '--progress',
    kind: 'string',
    description:
      'progress on stderr: tree (a live view, the default on a terminal), plain (about a line per turn or second, the default otherwise) or none',
    values: PROGRESS_MODES,
  },
  include: {
    env: 'RLM_INCLUDE',
    flag: '--include',
    kind: 'list',
    description: 'globs a directory context keeps',
  },
  exclude: {
    env: 'RLM_EXCLUDE',
    flag: '--exclude',
    kind: 'list',
    description: 'globs a directory context skips',
  },
  allowModels: {
    env: 'RLM_ALLOW_MODELS',
    flag: '--allow-model',
    kind: 'list',
    description:
      'rlm mcp: a model id a connected client may choose for rlm_query besides --model (none by default)',
  },
} as const satisfies Record<ConfigKey, ConfigKeyInfo>;

/** Every key, in display order. */
export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

/** Keys only `rlm mcp` reads; other commands do not offer their flags. */
export const MCP_ONLY_KEYS: readonly ConfigKey[] = ['allowModels'];

/** The keys a run command (`run`, `resume`) offers as flags. */
export const RUN_CONFIG_KEY_NAMES = CONFIG_KEY_NAMES.filter((key) => !MCP_ONLY_KEYS.includes(key));

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no']);

/**
 * Turns the text of an env variable or flag into the value the schema checks. Numbers and
 * booleans (`1/0`, `true/false`, `on/off`, `yes/no`) that do not parse are passed on as text, so
 * the schema reports them with the key's name.
 */
export function parseConfigText(key: ConfigKey, text: string): unknown {
  const { kind } = CONFIG_KEYS[key];
  if (kind === 'number') {
    const value = Number(text.trim());
    return text.trim() === '' || Number.isNaN(value) ? text : value;
  }
  if (kind === 'boolean') {
    const word = text.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return text;
  }
  if (kind === 'list') {
    return text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
  return text;
}
