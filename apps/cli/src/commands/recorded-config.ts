import type { JsonValue } from '@rlm/protocol';
import { type PartialCliConfig, partialCliConfigSchema } from '../config/config-schema.js';

/**
 * The configuration `rlm run` recorded for a run (under `cli` in its run record), as a layer for
 * `rlm resume`: empty for a run recorded without one (by an older version or another program).
 */
export function recordedCliConfig(record: Readonly<Record<string, JsonValue>>): PartialCliConfig {
  const parsed = partialCliConfigSchema.safeParse(record['cli']);
  if (!parsed.success) return {};
  // Where runs are stored and how progress shows belong to this invocation, not to the run.
  const { runStore: _store, progress: _progress, ...config } = parsed.data;
  return config;
}
