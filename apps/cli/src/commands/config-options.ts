import { type Command, Option } from 'commander';
import { CONFIG_KEY_NAMES, CONFIG_KEYS, type ConfigKeyInfo } from '../config/config-keys.js';
import type { ConfigKey } from '../config/config-schema.js';
import { collect } from './collect-option.js';

const PLACEHOLDER = { string: '<value>', number: '<n>', list: '<value>' } as const;

/** Options shared by every command that resolves configuration (`run`, `config`, `prompts show`). */
export interface ConfigCommandOptions {
  config?: string;
  debug?: boolean;
}

/**
 * Adds one flag per configuration key (from `CONFIG_KEYS`, so flags, env variables and config
 * files cannot drift apart) plus `--config FILE`. List flags repeat: `--driver a.md --driver b.md`.
 */
export function addConfigOptions(
  command: Command,
  keys: readonly ConfigKey[] = CONFIG_KEY_NAMES,
): Command {
  for (const key of keys) {
    const info: ConfigKeyInfo = CONFIG_KEYS[key];
    const description = `${info.description} (env ${info.env})`;
    if (info.kind === 'boolean') {
      // `--tools` then `--no-tools`: commander leaves the value undefined when neither is given,
      // so lower layers (file, env) still count.
      const name = info.flag.replace(/^--/, '');
      command.option(`--${name}`, description).option(`--no-${name}`, `turn ${name} off`);
      continue;
    }
    const flags = `${info.flag} ${PLACEHOLDER[info.kind]}`;
    const option =
      info.kind === 'list'
        ? new Option(flags, `${description}; repeatable`).argParser(collect)
        : new Option(flags, description);
    // Shown in help and completed by the shell; the config schema still does the checking.
    if (info.values !== undefined) option.argChoices = [...info.values];
    command.addOption(option);
  }
  return command
    .option('--config <file>', 'read this config file instead of looking for rlm.config.json/.toml')
    .option('--debug', 'show stack traces on errors');
}

/** Picks the configuration keys out of a command's parsed options (commander camel-cases flags). */
export function readConfigFlags(
  options: Record<string, unknown>,
): Partial<Record<ConfigKey, unknown>> {
  const flags: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const name = optionName(key);
    if (options[name] !== undefined) flags[key] = options[name];
  }
  return flags;
}

/** Commander's attribute name for a key's flag (`--max-cost` → `maxCost`, `--driver` → `driver`). */
function optionName(key: ConfigKey): string {
  return CONFIG_KEYS[key].flag
    .replace(/^--/, '')
    .replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
