import { type Command, Option } from 'commander';
import type { OutputStream } from '../cli-io.js';

export interface DeprecatedAliasOptions {
  /** The old spelling with its placeholder, e.g. `--prompt-mode <modes>`. */
  flags: string;
  /** The flag that replaces it, as help and the note name it, e.g. `--mode`. */
  replacement: string;
  /** Commander's attribute name of the replacement (`mode`, `maxCost`). */
  target: string;
  /** Turns the old value into the replacement's value (given its current value, for lists). */
  parse(value: string, previous: unknown): unknown;
  /** Where the deprecation note goes. */
  stderr: OutputStream;
}

/**
 * Keeps an old flag spelling working for one release: hidden from help and completion, it sets
 * the replacement's value (merging with it, for lists) and says once on stderr what to write
 * instead.
 */
export function addDeprecatedAlias(
  command: Command,
  { flags, replacement, target, parse, stderr }: DeprecatedAliasOptions,
): void {
  const option = new Option(flags).hideHelp();
  command.addOption(option);
  let noted = false;
  // Runs after commander stored the alias's own value: the value moves to the replacement.
  command.on(`option:${option.name()}`, (value: string) => {
    command.setOptionValueWithSource(target, parse(value, command.getOptionValue(target)), 'cli');
    if (noted) return;
    noted = true;
    stderr.write(
      `rlm: ${option.long} is deprecated and goes away in the next release; use ${replacement}.\n`,
    );
  });
}
