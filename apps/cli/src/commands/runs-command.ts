import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { StoredRunStatus } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import { formatCost, formatCount } from '@rlm/trace';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { defaultTrajectoryDir, resolveConfig } from '../config/resolve-config.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { collect } from './collect-option.js';
import { configuredRunStore } from './run-reference.js';
import { type ListedRun, listRecordedRuns } from './runs-list.js';

/** Rows `rlm runs` prints without `--limit`. */
export const DEFAULT_RUNS_LIMIT = 20;

interface RunsOptions {
  status?: string[];
  since?: string;
  limit?: string;
  json?: boolean;
  runStore?: string;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `rlm runs`: the recorded runs, newest first, to find an id for trace, replay or resume. */
export function registerRunsCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('runs')
    .description('list recorded runs, newest first (id, start, status, model, query, cost, tokens)')
    .option(
      '--status <status>',
      'only runs with this status (repeat or comma-separate: completed, running, failed, …)',
      collect,
    )
    .option('--since <when>', 'only runs started since then: 30m, 12h, 7d, 2w, or a date/ISO time')
    .option('--limit <n>', `at most this many runs (default ${DEFAULT_RUNS_LIMIT})`)
    .option('--json', 'print the runs as JSON')
    .option('--run-store <path>', 'the run store to read (default <data dir>/runs.db)')
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Every rlm run is recorded in the run store. "last" names the newest run and "last~N" the one N
before it, wherever a run id is taken (rlm trace, rlm replay, rlm resume).

Examples:
  $ rlm runs
  $ rlm runs --status failed,budget_exceeded --since 2d
  $ rlm runs --json | jq -r '.runs[0].id'
  $ rlm trace last~1`,
    )
    .action(async (options: RunsOptions) => {
      setExitCode(await runsAction(options, io));
    });
}

async function runsAction(options: RunsOptions, io: CliIo): Promise<ExitCode> {
  const status = await parseStatuses(options.status);
  const since = options.since === undefined ? undefined : parseSince(options.since, io.now());
  const limit = parseLimit(options.limit);
  const storePath =
    options.runStore === undefined ? configuredRunStore(io) : resolve(io.cwd, options.runStore);
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  const trajectoryDir = config.trajectoryDir ?? defaultTrajectoryDir(io.paths);
  const runs = await listRecordedRuns(storePath, {
    limit,
    trajectoryDir,
    ...(status === undefined ? {} : { status }),
    ...(since === undefined ? {} : { since }),
  });
  if (options.json === true) {
    const rows = runs.map((run) => {
      const trajectory = join(trajectoryDir, `${run.id}.jsonl`);
      return {
        ...run,
        startedAt: new Date(run.startedAt).toISOString(),
        endedAt: run.endedAt === null ? null : new Date(run.endedAt).toISOString(),
        trajectory: existsSync(trajectory) ? trajectory : null,
      };
    });
    io.stdout.write(`${JSON.stringify({ runs: rows, store: storePath }, null, 2)}\n`);
    return EXIT_CODES.answered;
  }
  if (runs.length === 0) {
    const filtered = status !== undefined || since !== undefined;
    io.stderr.write(
      filtered
        ? `No runs in ${storePath} match the filters.\n`
        : `No runs in ${storePath} yet; start one with rlm run.\n`,
    );
    return EXIT_CODES.answered;
  }
  const width = io.stdout.isTTY === true ? (io.stdout.columns ?? 100) : Number.POSITIVE_INFINITY;
  io.stdout.write(`${runsTable(runs, width).join('\n')}\n`);
  return EXIT_CODES.answered;
}

/** A fixed-column table; the query takes what is left of the terminal's width. */
export function runsTable(runs: readonly ListedRun[], width: number): string[] {
  const rows = runs.map((run) => [
    run.id,
    new Date(run.startedAt).toISOString().slice(0, 16).replace('T', ' '),
    run.status,
    run.model ?? '-',
    formatCost(run.costUsd),
    formatCount(run.tokens),
    oneLine(run.query ?? ''),
  ]);
  const head = ['ID', 'STARTED (UTC)', 'STATUS', 'MODEL', 'COST', 'TOKENS', 'QUERY'];
  const widths = head
    .slice(0, -1)
    .map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const fixed = widths.reduce((sum, value) => sum + value + 2, 0);
  const room = Math.max(20, width - fixed);
  return [head, ...rows].map((row) => {
    const cells = widths.map((size, column) => {
      const cell = row[column] ?? '';
      // Numbers read best aligned on the right.
      return column === 4 || column === 5 ? cell.padStart(size) : cell.padEnd(size);
    });
    const query = row[6] ?? '';
    const cut = query.length > room ? `${query.slice(0, room - 1)}…` : query;
    return `${cells.join('  ')}  ${cut}`.trimEnd();
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

async function parseStatuses(values: string[] | undefined): Promise<StoredRunStatus[] | undefined> {
  if (values === undefined) return undefined;
  const { storedRunStatusSchema } = await import('@rlm/memory');
  const known = storedRunStatusSchema.options;
  const statuses = values.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const status of statuses) {
    if (!(known as readonly string[]).includes(status)) {
      throw new RlmError({
        code: 'cli.usage',
        message: `--status ${status} is not a run status; expected one of ${known.join(', ')}.`,
        details: { option: '--status' },
      });
    }
  }
  return statuses as StoredRunStatus[];
}

/** `30m`, `12h`, `7d`, `2w` before `now`, or a date the platform parses (`2026-11-29`, ISO). */
export function parseSince(value: string, now: number): number {
  const relative = /^(\d+)\s*([mhdw])$/.exec(value.trim());
  if (relative !== null) {
    return now - Number(relative[1]) * (UNITS[relative[2] as string] as number);
  }
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--since ${value} is neither a duration (30m, 12h, 7d, 2w) nor a date (2026-11-29, or an ISO time).`,
      details: { option: '--since' },
    });
  }
  return at;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_RUNS_LIMIT;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--limit ${value} is not a whole number from 1 to 1000.`,
      details: { option: '--limit' },
    });
  }
  return limit;
}
