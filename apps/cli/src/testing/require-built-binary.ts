import { existsSync } from 'node:fs';
import { BIN_PATH } from './spawn-cli.js';

/**
 * Vitest global setup: the tests run the built binary, as users do, so without a build every
 * test would fail with a module error. Say what to do instead.
 */
export function setup(): void {
  if (!existsSync(BIN_PATH)) {
    throw new Error(`${BIN_PATH} does not exist: build first with pnpm --filter @rlm/cli build`);
  }
}
