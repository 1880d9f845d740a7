import { accessSync, constants, mkdirSync } from 'node:fs';
import { RlmError } from '@rlm/protocol';

/**
 * Creates the trajectory directory before a run starts, so an unusable path is one clear error
 * up front instead of a failure after the first model call.
 *
 * @throws RlmError `config.invalid` naming the directory and the ways to choose another
 */
export function ensureTrajectoryDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new RlmError({
      code: 'config.invalid',
      message: `Cannot write trajectories to ${dir} (${code}); pass --trajectory-dir or set RLM_TRAJECTORY_DIR to a writable directory.`,
      details: { source: 'trajectoryDir', issues: [`not writable: ${code}`] },
      cause: error,
    });
  }
}
