import { type Command, Option } from 'commander';
import { RUN_CONFIG_KEY_NAMES } from '../config/config-keys.js';
import { collect } from './collect-option.js';
import { addConfigOptions, type ConfigCommandOptions } from './config-options.js';

/** The parsed flags of `rlm run` and `rlm resume` that are not configuration keys. */
export interface RunInputOptions extends ConfigCommandOptions {
  context?: string[];
  json?: boolean;
  quiet?: boolean;
}

/** One flag of `rlm run` and `rlm resume` that is not a configuration key. */
interface RunFlag {
  /** Commander's flag syntax: `-c, --context <path>`, `--json`. */
  flags: string;
  description: string;
  /** Turns the text into the value (`collect` makes a repeatable flag). */
  parse?(value: string, previous: unknown): unknown;
}

/**
 * The flags `rlm run` and `rlm resume` share besides the configuration keys. A flag added here
 * reaches both commands, their help and the shell completion; a flag that should also be settable
 * from a config file or an `RLM_*` variable belongs in `CONFIG_KEYS` instead.
 */
const RUN_FLAGS: readonly RunFlag[] = [
  {
    flags: '-c, --context <path>',
    description: 'a file, directory, glob or - for stdin; repeat for context_0, context_1, …',
    parse: collect,
  },
  { flags: '--json', description: 'print the full result object as JSON on stdout' },
  { flags: '-q, --quiet', description: 'no progress or size report on stderr' },
];

/** Adds the run flags, then one flag per configuration key, to `rlm run` or `rlm resume`. */
export function addRunOptions(command: Command): Command {
  for (const { flags, description, parse } of RUN_FLAGS) {
    const option = new Option(flags, description);
    command.addOption(parse === undefined ? option : option.argParser(parse));
  }
  return addConfigOptions(command, RUN_CONFIG_KEY_NAMES);
}
