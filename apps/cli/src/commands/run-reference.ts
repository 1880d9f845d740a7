import { RlmError } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { defaultRunStorePath, resolveConfig } from '../config/resolve-config.js';
import { listRecordedRuns } from './runs-list.js';

const LAST = /^last(?:~(\d+))?$/;

/** How many runs back `last` (0) or `last~N` (N) points; `undefined` for anything else. */
export function lastRunOffset(reference: string): number | undefined {
  const match = LAST.exec(reference.trim());
  if (match === null) return undefined;
  return match[1] === undefined ? 0 : Number(match[1]);
}

/**
 * The run id a command was given: `last` is the newest root run in the run store, `last~N` the
 * one N runs before it (as `rlm runs` lists them); anything else is returned as it is. One
 * resolver for `trace`, `replay` and `resume`, so the same word names the same run everywhere.
 *
 * @throws RlmError `cli.usage` when the store holds fewer runs than `last~N` asks for
 */
export async function resolveRunReference(
  reference: string,
  io: CliIo,
  /** The run store; @default the configured one (`--run-store`, `RLM_RUN_STORE`, config file) */
  store?: string,
): Promise<string> {
  const offset = lastRunOffset(reference);
  if (offset === undefined) return reference;
  const storePath = store ?? configuredRunStore(io);
  const runs = await listRecordedRuns(storePath, { limit: offset + 1 });
  const run = runs[offset];
  if (run !== undefined) return run.id;
  throw new RlmError({
    code: 'cli.usage',
    message:
      runs.length === 0
        ? `There are no runs in ${storePath} for ${reference.trim()} to name; start one with rlm run, or pass --run-store if they are stored elsewhere.`
        : `${reference.trim()} names the run ${offset} before the newest, but ${storePath} holds only ${runs.length} run${runs.length === 1 ? '' : 's'}; see them with rlm runs.`,
    details: { option: 'run-id' },
  });
}

/** The run store the configuration names (env and config files; commands with a flag pass theirs). */
export function configuredRunStore(io: CliIo): string {
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  return config.runStore ?? defaultRunStorePath(io.paths);
}
