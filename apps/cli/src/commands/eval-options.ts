import type { EvalCommandOptionsInput } from '@rlm/eval';
import { BUILTIN_DRIVER_NAMES, PROMPT_MODES } from '@rlm/prompts';
import { type Command, Option } from 'commander';
import type { OutputStream } from '../cli-io.js';
import { CONFIG_KEYS } from '../config/config-keys.js';
import { PROGRESS_MODES } from '../config/config-schema.js';
import { addDeprecatedAlias } from './deprecated-alias.js';

type EvalKey = keyof EvalCommandOptionsInput;

/** One flag of `rlm eval`: the option key it sets and how its text becomes a value. */
interface EvalFlag {
  key: EvalKey;
  flags: string;
  description: string;
  /** `list` flags repeat and take comma-separated values; `number` text becomes a number. */
  kind: 'text' | 'number' | 'list' | 'boolean';
  /** Values for help and shell completion (@rlm/eval's schema does the checking). */
  values?: readonly string[];
}

/**
 * The flags of `rlm eval`. A concept `rlm run` also has keeps run's spelling (taken from
 * `CONFIG_KEYS`, so the two cannot drift apart); eval's own axes (benchmark, sizes, systems,
 * attempts, …) are eval's. Values are checked by @rlm/eval's `evalCommandOptionsSchema`.
 */
const EVAL_FLAGS: readonly EvalFlag[] = [
  {
    key: 'benchmark',
    flags: '--benchmark <name>',
    description: 'a built-in benchmark, or file:PATH (JSONL tasks); required',
    kind: 'text',
    // @rlm/eval's BENCHMARK_NAMES (not imported: eval loads on first use, not for --help).
    values: ['sniah', 'aggregate', 'pairs', 'multidoc', 'arc', 'file:'],
  },
  {
    key: 'sizes',
    flags: '--sizes <sizes>',
    description: 'context sizes in characters, e.g. 8k,128k,1m (default 8k)',
    kind: 'list',
  },
  {
    key: 'tasks',
    flags: '--tasks <n|dir>',
    description:
      'tasks per size (default 1); with --benchmark arc, a directory of ARC task files (*.json) instead of the generated suite',
    kind: 'number',
  },
  { key: 'seed', flags: '--seed <n>', description: 'generator seed (default 1)', kind: 'number' },
  {
    key: 'needles',
    flags: '--needles <n>',
    description: 'sniah: needles per task, more than 1 asks for a set (default 1)',
    kind: 'number',
  },
  {
    key: 'systems',
    flags: '--systems <systems>',
    description: 'rlm, base or both (default rlm,base)',
    kind: 'list',
    values: ['rlm', 'base', 'rlm,base'],
  },
  {
    key: 'model',
    flags: `${CONFIG_KEYS.model.flag} <id>`,
    description: 'provider/model, or testkit:<policy> to run offline; required',
    kind: 'text',
  },
  {
    key: 'subModel',
    flags: `${CONFIG_KEYS.subModel.flag} <id>`,
    description: 'model behind llm_query (default --model)',
    kind: 'text',
  },
  {
    key: 'maxDepth',
    flags: `${CONFIG_KEYS.maxDepth.flag} <n>`,
    description: 'RLM recursion depth (default 1 for solver, 2 for coordinator)',
    kind: 'number',
  },
  {
    key: 'maxIterations',
    flags: `${CONFIG_KEYS.maxIterations.flag} <n>`,
    description: 'RLM turns per run',
    kind: 'number',
  },
  {
    key: 'modes',
    flags: `${CONFIG_KEYS.mode.flag} <mode>`,
    description:
      'solver or coordinator; repeat (or comma-separate) for one rlm system per mode (default solver)',
    kind: 'list',
    values: PROMPT_MODES,
  },
  {
    key: 'repl',
    flags: `${CONFIG_KEYS.repl.flag} <language>`,
    description:
      'the language the rlm systems write: javascript (default) or python (needs @rlm/sandbox-python)',
    kind: 'text',
    values: CONFIG_KEYS.repl.values,
  },
  {
    key: 'drivers',
    flags: `${CONFIG_KEYS.drivers.flag} <[mode:]name>`,
    description:
      'a built-in prompt driver: NAME goes to every mode it fits, MODE:NAME (solver:verify-before-final) to that mode only; repeatable',
    kind: 'list',
    values: BUILTIN_DRIVER_NAMES,
  },
  {
    key: 'attempts',
    flags: '--attempts <n>',
    description: 'attempts per task and system, for pass@k (default 1)',
    kind: 'number',
  },
  {
    key: 'concurrency',
    flags: '--concurrency <n>',
    description: 'attempts running at once (default 1)',
    kind: 'number',
  },
  {
    key: 'maxCostUsd',
    flags: `${CONFIG_KEYS.maxCostUsd.flag} <usd>`,
    description: 'cost budget of the whole eval in US dollars: no attempt starts past it',
    kind: 'number',
  },
  {
    key: 'baseWindow',
    flags: '--base-window <tokens>',
    description: "the base system's window in tokens (default: the model's)",
    kind: 'number',
  },
  {
    key: 'out',
    flags: '--out <dir>',
    description: 'output directory (default eval-results)',
    kind: 'text',
  },
  {
    key: 'resume',
    flags: '--resume',
    description: 'keep the finished rows in --out and run only the rest',
    kind: 'boolean',
  },
  {
    key: 'force',
    flags: '--force',
    description:
      'replace the rows an earlier eval left in --out (without it, or --resume, they are refused)',
    kind: 'boolean',
  },
  {
    key: 'cache',
    flags: CONFIG_KEYS.cache.flag,
    description:
      'answer repeated sub-calls from the cache rlm run --cache uses (the run store, shared by every attempt and run on this machine), at no cost',
    kind: 'boolean',
  },
  {
    key: 'offlineTransport',
    flags: '--offline-transport <transport>',
    description:
      'fake-anthropic: testkit models answer through a local fake Anthropic server and the real client (default in-process)',
    kind: 'text',
    // @rlm/eval's OFFLINE_TRANSPORTS.
    values: ['in-process', 'fake-anthropic'],
  },
  {
    key: 'progress',
    flags: `${CONFIG_KEYS.progress.flag} <mode>`,
    description: `tree (one line redrawn, the default on a terminal), plain (a line a second at most) or none (env ${CONFIG_KEYS.progress.env})`,
    kind: 'text',
    values: PROGRESS_MODES,
  },
];

/** Old spellings of `rlm eval` flags, kept (hidden) for one release. */
const DEPRECATED_EVAL_FLAGS: readonly { flags: string; key: EvalKey }[] = [
  { flags: '--prompt-mode <modes>', key: 'modes' },
  { flags: '--drivers <names>', key: 'drivers' },
  { flags: '--max-cost-usd <usd>', key: 'maxCostUsd' },
];

/** Adds the flags of `rlm eval`, and its deprecated spellings, to `command`. */
export function addEvalOptions(command: Command, { stderr }: { stderr: OutputStream }): Command {
  for (const flag of EVAL_FLAGS) {
    const option = new Option(flag.flags, flag.description);
    if (flag.values !== undefined) option.argChoices = [...flag.values];
    command.addOption(flag.kind === 'boolean' ? option : option.argParser(parserOf(flag.kind)));
  }
  for (const { flags, key } of DEPRECATED_EVAL_FLAGS) {
    const flag = flagOf(key);
    addDeprecatedAlias(command, {
      flags,
      replacement: flag.flags.split(' ')[0] ?? flag.flags,
      target: attributeOf(flag),
      parse: parserOf(flag.kind),
      stderr,
    });
  }
  return command;
}

/** The `rlm eval` options as @rlm/eval takes them, from commander's parsed flags. */
export function readEvalOptions(parsed: Record<string, unknown>): Partial<EvalCommandOptionsInput> {
  const input: Record<string, unknown> = {};
  for (const flag of EVAL_FLAGS) {
    const value = parsed[attributeOf(flag)];
    if (value !== undefined) input[flag.key] = value;
  }
  return input as Partial<EvalCommandOptionsInput>;
}

/** The long flag that sets `key` (`maxCostUsd` → `--max-cost`), for messages. */
export function evalFlagName(key: string): string {
  const flag = EVAL_FLAGS.find((candidate) => candidate.key === key);
  return flag === undefined ? key : (flag.flags.split(' ')[0] ?? key);
}

function flagOf(key: EvalKey): EvalFlag {
  const flag = EVAL_FLAGS.find((candidate) => candidate.key === key);
  if (flag === undefined) throw new Error(`eval-options: no flag for ${key}`);
  return flag;
}

function attributeOf(flag: EvalFlag): string {
  return new Option(flag.flags).attributeName();
}

function parserOf(kind: EvalFlag['kind']): (value: string, previous: unknown) => unknown {
  if (kind === 'number') {
    // Text that is not a number stays text, so the schema names the flag and what it expects.
    return (value) => (value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value);
  }
  if (kind === 'list') {
    return (value, previous) => [
      ...(Array.isArray(previous) ? previous : []),
      ...value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ];
  }
  return (value) => value;
}
