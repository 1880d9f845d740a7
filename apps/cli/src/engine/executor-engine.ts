import { RlmError } from '@rlm/protocol';
import type { RunEngine } from './run-engine.js';

/** Runs `rlm run` requests with @rlm/executor. */
export function createExecutorEngine(): RunEngine {
  return {
    run() {
      return Promise.reject(
        new RlmError({
          code: 'cli.not_available',
          message: 'rlm run is not available yet: @rlm/executor is still being built.',
          details: { feature: 'run' },
        }),
      );
    },
  };
}
