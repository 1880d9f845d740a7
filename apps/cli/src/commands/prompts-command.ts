import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { loadToolModules } from '../config/load-tool-modules.js';
import { readDrivers } from '../config/read-drivers.js';
import { resolveConfig } from '../config/resolve-config.js';
import { cliRunSettings } from '../engine/cli-run-settings.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { addConfigOptions, type ConfigCommandOptions, readConfigFlags } from './config-options.js';

interface ShowOptions extends ConfigCommandOptions {
  depth: string;
  reportOnly?: boolean;
}

/** `rlm prompts show`: the assembled system prompt and a section/size report. */
export function registerPromptsCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  const prompts = program
    .command('prompts')
    .description('inspect the system prompts the model sees')
    .addHelpText(
      'after',
      `
Examples:
  $ rlm prompts show --report-only
  $ rlm prompts show --max-depth 2 --mode coordinator`,
    );
  const show = prompts
    .command('show')
    .description(
      'print the system prompt a run with these settings sends (byte for byte), then a section/size report',
    )
    .option('--depth <n>', 'depth of the run the prompt is for (0 is the root)', '0')
    .option('--report-only', 'print only the section/size report');
  // Every key that changes the prompt, so what is shown is what `rlm run` with them sends.
  addConfigOptions(show, [
    'model',
    'subModel',
    'taskModel',
    'maxDepth',
    'maxIterations',
    'mode',
    'repl',
    'drivers',
    'tools',
    'toolModules',
  ]);
  show.addHelpText(
    'after',
    `
Examples:
  $ rlm prompts show
  $ rlm prompts show --max-depth 3 --mode coordinator --report-only
  $ rlm prompts show --depth 1 --max-depth 2
  $ rlm prompts show --repl python
  $ rlm prompts show --driver terse --driver ./drivers/house-style.md`,
  );
  show.action(async (options: ShowOptions & Record<string, unknown>) => {
    const { config } = resolveConfig({
      cwd: io.cwd,
      env: io.env,
      paths: io.paths,
      flags: readConfigFlags(options),
      ...(options.config === undefined ? {} : { configPath: options.config }),
    });
    const depth = Number(options.depth);
    if (!Number.isInteger(depth) || depth < 0) {
      throw new RlmError({
        code: 'cli.usage',
        message: `--depth must be a whole number from 0 (the root), got ${options.depth}.`,
        details: { option: '--depth' },
      });
    }
    if (depth >= config.maxDepth) {
      throw new RlmError({
        code: 'cli.usage',
        message: `--depth must be below --max-depth (${config.maxDepth}): a run's REPL invocations are at depth 0 to ${config.maxDepth - 1}.`,
        details: { option: '--depth' },
      });
    }
    // The executor builds it from the run settings, as `rlm run` does: one function for both.
    // Loaded here, not at the top: every `rlm` command (even `--help`) would load the executor.
    const [{ settingsSystemPrompt }, { renderPromptReport }] = await Promise.all([
      import('@rlm/executor'),
      import('@rlm/prompts'),
    ]);
    const prompt = settingsSystemPrompt(cliRunSettings(config), {
      depth,
      drivers: await readDrivers(config.drivers),
      tools: config.tools ? await loadToolModules(config.toolModules) : {},
    });
    if (options.reportOnly !== true) io.stdout.write(`${prompt.text}\n\n`);
    io.stdout.write(`${renderPromptReport(prompt.options)}\n`);
    setExitCode(EXIT_CODES.answered);
  });
}
