import { buildSystemPrompt, renderPromptReport, type SystemPromptOptions } from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { readDrivers } from '../config/read-drivers.js';
import { resolveConfig } from '../config/resolve-config.js';
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
    .description('print the assembled system prompt, then a section/size report')
    .option('--depth <n>', 'depth of the run the prompt is for (0 is the root)', '0')
    .option('--report-only', 'print only the section/size report');
  addConfigOptions(show, ['model', 'maxDepth', 'mode', 'repl', 'drivers']);
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
    const promptOptions: SystemPromptOptions = {
      depth,
      maxDepth: config.maxDepth,
      mode: config.mode,
      repl: config.repl,
      drivers: await readDrivers(config.drivers),
      model: config.model,
    };
    if (options.reportOnly !== true) io.stdout.write(`${buildSystemPrompt(promptOptions)}\n\n`);
    io.stdout.write(`${renderPromptReport(promptOptions)}\n`);
    setExitCode(EXIT_CODES.answered);
  });
}
