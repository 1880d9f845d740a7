import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CallCacheStats } from '@rlm/memory';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { defaultRunStorePath, resolveConfig } from '../config/resolve-config.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { addConfigOptions, type ConfigCommandOptions, readConfigFlags } from './config-options.js';

type CacheOptions = ConfigCommandOptions & { json?: boolean } & Record<string, unknown>;

/**
 * `rlm cache stats|clear`: the sub-call cache `--cache` runs share, in the run store's SQLite
 * file (`<data dir>/runs.db` unless `--run-store` says otherwise).
 */
export function registerCacheCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  const cache = program
    .command('cache')
    .description('the sub-call cache that --cache runs share: stats, clear');
  const stats = cache
    .command('stats')
    .description('entries, hits and what the cache saved')
    .option('--json', 'print the numbers as JSON');
  addConfigOptions(stats, ['runStore']);
  stats.action(async (options: CacheOptions) => {
    const { path, result } = await withCache(io, options, (store) => store.stats());
    io.stdout.write(
      options.json === true
        ? `${JSON.stringify({ path, ...result })}\n`
        : renderStats(path, result),
    );
    setExitCode(EXIT_CODES.answered);
  });
  const clear = cache
    .command('clear')
    .description('delete cached answers (all, or those older than --older-than-ms)')
    .option('--older-than-ms <n>', 'delete only entries stored at least this long ago', Number);
  addConfigOptions(clear, ['runStore']);
  clear.action(async (options: CacheOptions & { olderThanMs?: number }) => {
    const { olderThanMs } = options;
    if (olderThanMs !== undefined && !(Number.isFinite(olderThanMs) && olderThanMs >= 0)) {
      const { RlmError } = await import('@rlm/protocol');
      throw new RlmError({
        code: 'cli.usage',
        message: '--older-than-ms: expected a number of milliseconds, 0 or more',
        details: { option: '--older-than-ms' },
      });
    }
    const { path, result } = await withCache(io, options, (store) =>
      store.clear(olderThanMs === undefined ? {} : { storedBefore: Date.now() - olderThanMs }),
    );
    io.stdout.write(`Deleted ${result} cached answer${result === 1 ? '' : 's'} from ${path}\n`);
    setExitCode(EXIT_CODES.answered);
  });
}

async function withCache<T>(
  io: CliIo,
  options: CacheOptions,
  work: (cache: import('@rlm/memory').CallCacheStore) => Promise<T>,
): Promise<{ path: string; result: T }> {
  const { config } = resolveConfig({
    cwd: io.cwd,
    env: io.env,
    paths: io.paths,
    flags: readConfigFlags(options),
    ...(options.config === undefined ? {} : { configPath: options.config }),
  });
  const path = config.runStore ?? defaultRunStorePath(io.paths);
  const { createStore } = await import('@rlm/memory');
  mkdirSync(dirname(path), { recursive: true });
  const store = await createStore({ kind: 'sqlite', path });
  try {
    return { path, result: await work(store.callCache) };
  } finally {
    await store.close();
  }
}

function renderStats(path: string, stats: CallCacheStats): string {
  const when = (at: number | null) => (at === null ? '—' : new Date(at).toISOString());
  return [
    `cache        ${path}`,
    `entries      ${stats.entries} (${stats.responseChars} characters of answers)`,
    `hits         ${stats.hits}`,
    `saved        $${stats.savedCostUsd.toFixed(4)}, ${stats.savedTokens} tokens`,
    `oldest       ${when(stats.oldestAt)}`,
    `newest       ${when(stats.newestAt)}`,
    '',
  ].join('\n');
}
