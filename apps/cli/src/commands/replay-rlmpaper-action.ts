import { readFile } from 'node:fs/promises';
import { type JsonValue, RlmError } from '@rlm/protocol';
import { safeParseRlmpaperLog } from '@rlm/trace';
import type { CliIo } from '../cli-io.js';
import { resolveConfig } from '../config/resolve-config.js';
import { loadContexts } from '../context/load-contexts.js';
import { readContextStdin } from '../context/read-context-stdin.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { type BlockReplay, type ReplayReplFactory, replayRlmpaperLog } from './replay-rlmpaper.js';

/** `createPythonSandbox` of @rlm/sandbox-python, an optional peer: loaded only here. */
const pythonRepl: ReplayReplFactory = async ({ context, functions }) => {
  let module: typeof import('@rlm/sandbox-python');
  try {
    module = await import('@rlm/sandbox-python');
  } catch (error) {
    throw new RlmError({
      code: 'cli.not_available',
      message:
        'Replaying a reference-engine log runs its Python code, which needs @rlm/sandbox-python: install it next to @rlm/cli (npm install @rlm/sandbox-python).',
      details: { feature: 'python' },
      cause: error,
    });
  }
  return module.createPythonSandbox({
    ...(context === undefined ? {} : { context }),
    functions,
  });
};

function firstLine(code: string): string {
  const lines = code.split('\n');
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
  const first = lines[0] ?? '';
  return `${first.length > 60 ? `${first.slice(0, 59)}…` : first}${more}`;
}

/** The report, block by block, then one summary line. */
export function formatBlockReplays(replays: readonly BlockReplay[]): string[] {
  const lines: string[] = [];
  for (const replay of replays) {
    const mark = replay.differences.length === 0 ? '✓' : '✗';
    lines.push(`  ${mark} turn ${replay.turn} block ${replay.block}  ${firstLine(replay.code)}`);
    for (const difference of replay.differences) lines.push(`      ${difference}`);
  }
  const differing = replays.filter((replay) => replay.differences.length > 0).length;
  lines.push(
    differing === 0
      ? `Matches: all ${replays.length} blocks print what the log recorded.`
      : `Differs: ${differing} of ${replays.length} blocks differ from the log.`,
  );
  return lines;
}

/**
 * `rlm replay LOG --repl python` for a reference-engine log: its root's code blocks run again in
 * our Python REPL over its recorded context (or `--context`), sub-calls answered from the log.
 * Exit 0 when every block matches, 1 when one differs.
 */
export async function replayRlmpaperAction(
  path: string,
  options: { context?: string[]; repl?: string },
  io: CliIo,
): Promise<ExitCode> {
  if (options.repl !== undefined && options.repl !== 'python') {
    throw new RlmError({
      code: 'cli.usage',
      message: `--repl ${options.repl}: a reference-engine log records Python code; replay it with --repl python.`,
      details: { option: '--repl' },
    });
  }
  const parsed = safeParseRlmpaperLog(await readFile(path, 'utf8'));
  if (!parsed.ok) {
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trace log ${path} line ${parsed.error.line} is not a reference-engine iteration (${parsed.error.issues.join('; ')}).`,
      details: { path, line: parsed.error.line },
    });
  }
  const context = await contextFor(parsed.value.context, options.context ?? [], io);
  io.stderr.write(
    `Replaying the recorded blocks of ${path} in the Python REPL (context: ${context.source})…\n`,
  );
  const replays = await replayRlmpaperLog(parsed.value, {
    context: context.value,
    createRepl: pythonRepl,
    path,
  });
  io.stdout.write(`${formatBlockReplays(replays).join('\n')}\n`);
  return replays.every((replay) => replay.differences.length === 0)
    ? EXIT_CODES.answered
    : EXIT_CODES.failed;
}

/** `--context` when given (it wins), else the one the log recorded, else none. */
async function contextFor(
  recorded: JsonValue | undefined,
  paths: readonly string[],
  io: CliIo,
): Promise<{ value: JsonValue | undefined; source: string }> {
  if (paths.length === 0) {
    return recorded === undefined
      ? { value: undefined, source: 'none recorded; pass --context to give it' }
      : { value: recorded, source: 'recorded in the log' };
  }
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  const loaded = await loadContexts(paths, {
    cwd: io.cwd,
    readStdin: () => readContextStdin(io),
    include: config.include,
    exclude: config.exclude,
    maxBytes: config.maxContextBytes,
    allowEmpty: true,
  });
  const values = loaded.map((item) => item.value);
  return { value: values.length === 1 ? values[0] : values, source: paths.join(', ') };
}
