import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { defaultTrajectoryDir, resolveConfig } from '../config/resolve-config.js';
import { lastRunOffset, resolveRunReference } from './run-reference.js';

/**
 * Resolves what the user passed to `trace`/`replay`: a path to a `.jsonl` file, a run id found
 * as `<runId>.jsonl` in the configured trajectory directory, or `last`/`last~N` (see
 * `resolveRunReference`). Returns the path as given when none exists, so the reader reports it.
 */
export async function findTrajectory(reference: string, io: CliIo): Promise<string> {
  const direct = resolve(io.cwd, reference);
  if (existsSync(direct)) return direct;
  const runId =
    lastRunOffset(reference) === undefined ? reference : await resolveRunReference(reference, io);
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  const candidate = join(config.trajectoryDir ?? defaultTrajectoryDir(io.paths), `${runId}.jsonl`);
  return existsSync(candidate) || runId !== reference ? candidate : direct;
}
