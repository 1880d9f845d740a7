import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { CONFIG_KEY_NAMES, CONFIG_KEYS } from '../config/config-keys.js';
import type { CliConfig, ConfigKey } from '../config/config-schema.js';
import {
  defaultRunStorePath,
  defaultTrajectoryDir,
  resolveConfig,
} from '../config/resolve-config.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { addConfigOptions, type ConfigCommandOptions, readConfigFlags } from './config-options.js';

/** `rlm config`: the effective configuration and the source of every value. */
export function registerConfigCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  const command = program
    .command('config')
    .description('show the effective configuration and where each value comes from')
    .option('--json', 'print { config, sources, files } as JSON');
  addConfigOptions(command);
  command.addHelpText(
    'after',
    `
Sources, lowest to highest precedence:
  defaults < ${io.paths.config}/rlm.config.{json,toml} < ./rlm.config.{json,toml} (nearest upwards)
  < RLM_* environment variables < flags

Examples:
  $ rlm config
  $ RLM_MAX_DEPTH=2 rlm config --model openai/gpt-4.1-mini
  $ rlm config --json`,
  );
  command.action((options: ConfigCommandOptions & { json?: boolean } & Record<string, unknown>) => {
    const resolved = resolveConfig({
      cwd: io.cwd,
      env: io.env,
      paths: io.paths,
      flags: readConfigFlags(options),
      ...(options.config === undefined ? {} : { configPath: options.config }),
    });
    if (options.json === true) {
      io.stdout.write(`${JSON.stringify(resolved, null, 2)}\n`);
      setExitCode(EXIT_CODES.answered);
      return;
    }
    const rows = CONFIG_KEY_NAMES.map(
      (key) => [key, shownValue(key, resolved.config[key], io), resolved.sources[key]] as const,
    );
    const keyWidth = Math.max(...rows.map(([key]) => key.length));
    const valueWidth = Math.min(50, Math.max(...rows.map(([, value]) => value.length)));
    for (const [key, value, source] of rows) {
      io.stdout.write(`${key.padEnd(keyWidth)}  ${value.padEnd(valueWidth)}  ${source}\n`);
    }
    const files = resolved.files.length === 0 ? 'none found' : resolved.files.join(', ');
    io.stdout.write(`\nconfig files: ${files}\n`);
    io.stdout.write(
      `env variables: ${CONFIG_KEY_NAMES.map((key) => CONFIG_KEYS[key].env).join(' ')}\n`,
    );
    setExitCode(EXIT_CODES.answered);
  });
}

/** How `rlm config` shows a value: unset keys with a computed default say what it is. */
function shownValue(key: ConfigKey, value: CliConfig[ConfigKey], io: CliIo): string {
  if (value === undefined) {
    if (key === 'trajectoryDir') return `${defaultTrajectoryDir(io.paths)} (data dir)`;
    if (key === 'runStore') return `${defaultRunStorePath(io.paths)} (data dir)`;
    if (key === 'subModel') return 'the root model';
    if (key === 'taskModel') return 'the sub-model';
    if (key === 'progress') return 'tree on a terminal, plain otherwise';
    return '—';
  }
  if (Array.isArray(value)) return value.join(', ') || '—';
  return String(value);
}
