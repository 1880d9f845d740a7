import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EvalCommandOptionsInput } from '@rlm/eval';
import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { COORDINATOR_MIN_DEPTH } from '../config/coordinator-depth.js';
import { defaultRunStorePath, resolveConfig } from '../config/resolve-config.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { addEvalOptions, evalFlagName, readEvalOptions } from './eval-options.js';

interface EvalCommandDeps {
  io: CliIo;
  setExitCode(code: ExitCode): void;
}

/**
 * `rlm eval …` runs a benchmark with @rlm/eval (RLM systems against the base model) and
 * `rlm eval compare A B` compares two runs. Flags are parsed here, with the spellings `rlm run`
 * uses for the concepts both have; @rlm/eval validates the values. Ctrl-C stops the eval (the
 * report of what finished is still written); a second Ctrl-C exits at once.
 */
export function registerEvalCommand(program: Command, deps: EvalCommandDeps): void {
  const { io } = deps;
  const command = program
    .command('eval')
    .description('run a benchmark: RLM systems against the base model, with a report')
    // Options after `compare` are compare's, not eval's.
    .enablePositionalOptions();
  addEvalOptions(command, { stderr: io.stderr });
  command.addHelpText(
    'after',
    `
Writes results.jsonl, report.md, summary.json and accuracy.svg to --out and prints the report on
stdout; progress goes to stderr. Offline models: testkit:reference (solves every built-in
benchmark), testkit:needle-finder, testkit:needle-finder-grep, testkit:chunk-and-aggregate,
testkit:delegate-to-child.
Experiment settings come from flags only (run.json in --out records them); --progress also
reads RLM_PROGRESS and a config file, as for rlm run. Exit codes as for rlm run: 0 done (also
when --max-cost stopped it: continue with --resume), 2 a usage error, 5/6 provider or key
failures, 130 cancelled (the report of what finished is written).

Examples:
  $ rlm eval --benchmark sniah --sizes 8k,32k --model testkit:reference
  $ rlm eval --benchmark aggregate --sizes 8k,64k --model testkit:reference --mode solver --mode coordinator
  $ rlm eval --benchmark file:tasks.jsonl --model anthropic/claude-sonnet-5-5 --max-cost 5 --out runs/a
  $ rlm eval compare runs/a runs/b`,
  );
  command.action(async (options: Record<string, unknown>) => {
    deps.setExitCode(await evalAction(readEvalOptions(options), deps));
  });
  command
    .command('compare')
    .description('compare two eval runs: per-system accuracy and cost deltas, flipped tasks')
    .argument('<a>', 'the first run: its --out directory or its results.jsonl')
    .argument('<b>', 'the second run')
    .option('--json', 'print the comparison as JSON')
    .action(async (a: string, b: string, options: { json?: boolean }) => {
      const { runCompareCommand } = await import('@rlm/eval');
      await runCompareCommand({ a, b, json: options.json === true }, io);
      deps.setExitCode(EXIT_CODES.answered);
    });
}

async function evalAction(
  input: Partial<EvalCommandOptionsInput>,
  { io }: EvalCommandDeps,
): Promise<ExitCode> {
  // Loaded on first use, like the executor: benchmarks are not needed by the other commands.
  const { runEvalCommand, safeParseEvalCommandOptions } = await import('@rlm/eval');
  const { config } = resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: input.progress === undefined ? {} : { progress: input.progress },
  });
  // The progress mode falls back on RLM_PROGRESS and the config files, as for rlm run.
  const evalInput = {
    ...input,
    ...(config.progress === undefined ? {} : { progress: config.progress }),
  };
  const parsed = safeParseEvalCommandOptions(evalInput);
  if (!parsed.ok) {
    const issues = parsed.issues.map((issue) => {
      const flag = evalFlagName(issue.key);
      // Some messages already start with the flag (those of @rlm/eval's parseSize).
      if (issue.message.startsWith(flag)) return issue.message;
      return issue.message === 'is required' ? `${flag} is required` : `${flag}: ${issue.message}`;
    });
    throw new RlmError({
      code: 'cli.usage',
      message: `${issues.join('; ')} (see rlm eval --help)`,
      details: { option: evalFlagName(parsed.issues[0]?.key ?? '') },
    });
  }
  const note = coordinatorNote(parsed.options);
  if (note !== undefined) io.stderr.write(`${note}\n`);
  const controller = new AbortController();
  let interrupts = 0;
  const stopListening = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) io.exitNow(EXIT_CODES.cancelled);
    controller.abort(
      new RlmError({ code: 'executor.cancelled', message: 'Cancelled by Ctrl-C', details: {} }),
    );
  });
  // `--cache` is `rlm run --cache`'s cache: the run store's SQLite file.
  const store = parsed.options.cache
    ? await openRunStore(config.runStore ?? defaultRunStorePath(io.paths))
    : undefined;
  try {
    const result = await runEvalCommand(evalInput as EvalCommandOptionsInput, {
      ...io,
      signal: controller.signal,
      now: () => io.now(),
      ...(store === undefined ? {} : { callCaches: { sqlite: store.callCache } }),
    });
    if (result.stoppedBy === 'cancelled') {
      io.stderr.write(
        `rlm: Cancelled: ${result.pending} attempts not run; add --resume to the same command to run them.\n`,
      );
      return EXIT_CODES.cancelled;
    }
    if (result.stoppedBy === 'budget') {
      io.stderr.write(
        `rlm: Stopped at the cost limit: ${result.pending} attempts not run; add --resume and a larger --max-cost to run them.\n`,
      );
    }
    return EXIT_CODES.answered;
  } catch (error) {
    if (controller.signal.aborted) {
      io.stderr.write('rlm: Cancelled.\n');
      return EXIT_CODES.cancelled;
    }
    throw error;
  } finally {
    stopListening();
    await store?.close();
  }
}

async function openRunStore(path: string) {
  const { createStore } = await import('@rlm/memory');
  mkdirSync(dirname(path), { recursive: true });
  return createStore({ kind: 'sqlite', path });
}

/**
 * Coordinator mode needs children with a REPL: @rlm/eval runs the rlm-coordinator system at depth
 * 2 unless --max-depth is given. Say so, as `rlm run` does; a given depth below 2 is an error.
 */
function coordinatorNote(options: { modes: readonly string[]; maxDepth?: number | undefined }) {
  if (!options.modes.includes('coordinator')) return undefined;
  if (options.maxDepth === undefined) {
    return `rlm: --mode coordinator runs the rlm-coordinator system at max depth ${COORDINATOR_MIN_DEPTH} (its root delegates to children with a REPL); pass --max-depth to choose another.`;
  }
  if (options.maxDepth >= COORDINATOR_MIN_DEPTH) return undefined;
  throw new RlmError({
    code: 'cli.usage',
    message: `--mode coordinator needs --max-depth ${COORDINATOR_MIN_DEPTH} or more (its root delegates to children with a REPL), got ${options.maxDepth}; pass --max-depth ${COORDINATOR_MIN_DEPTH}, or leave it out.`,
    details: { option: '--max-depth' },
  });
}
