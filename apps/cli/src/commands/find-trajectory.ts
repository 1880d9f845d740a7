import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { defaultTrajectoryDir, resolveConfig } from '../config/resolve-config.js';

/**
 * Resolves what the user passed to `trace`/`replay`: a path to a `.jsonl` file, or a run id found
 * as `<runId>.jsonl` in the configured trajectory directory. Returns the path as given when
 * neither exists, so the reader reports it.
 */
export function findTrajectory(reference: string, io: CliIo): string {
  const direct = resolve(io.cwd, reference);
  if (existsSync(direct)) return direct;
  const { config } = resolveConfig({ cwd: io.cwd, env: io.env, paths: io.paths, flags: {} });
  const candidate = join(
    config.trajectoryDir ?? defaultTrajectoryDir(io.paths),
    `${reference}.jsonl`,
  );
  return existsSync(candidate) ? candidate : direct;
}
