import { RlmError } from '@rlm/protocol';
import { CONFIG_KEYS } from './config-keys.js';
import type { CliConfig, ConfigKey } from './config-schema.js';

/** The part of a resolved configuration this rule reads and rewrites. */
interface Sourced {
  config: CliConfig;
  sources: Record<ConfigKey, string>;
}

/** The least depth coordinator mode works at: its root delegates to children with a REPL. */
export const COORDINATOR_MIN_DEPTH = 2;

/** The source `rlm config` shows for a depth coordinator mode raised. */
export const COORDINATOR_DEPTH_SOURCE = 'default for --mode coordinator';

/**
 * Coordinator mode needs children with a REPL, so a depth nobody configured is raised to 2 (its
 * source then says so, for `rlm config` and the note `rlm run` prints); a depth someone did
 * configure is kept, and one too small for the mode is an error naming both sources.
 *
 * @throws RlmError `config.invalid` for coordinator mode at a configured depth below 2
 */
export function withCoordinatorDepth<TResolved extends Sourced>(resolved: TResolved): TResolved {
  const { config, sources } = resolved;
  if (config.mode !== 'coordinator' || config.maxDepth >= COORDINATOR_MIN_DEPTH) return resolved;
  if (sources.maxDepth === 'default') {
    return {
      ...resolved,
      config: { ...config, maxDepth: COORDINATOR_MIN_DEPTH },
      sources: { ...sources, maxDepth: COORDINATOR_DEPTH_SOURCE },
    };
  }
  const issue = `mode coordinator (from ${sources.mode}) needs maxDepth ${COORDINATOR_MIN_DEPTH} or more, but maxDepth is ${config.maxDepth} (from ${sources.maxDepth})`;
  throw new RlmError({
    code: 'config.invalid',
    message: `--mode coordinator needs ${CONFIG_KEYS.maxDepth.flag} ${COORDINATOR_MIN_DEPTH} or more (its root delegates to children with a REPL), but the max depth is ${config.maxDepth} (from ${sources.maxDepth}); pass ${CONFIG_KEYS.maxDepth.flag} ${COORDINATOR_MIN_DEPTH}, or leave the depth unset and coordinator mode raises it.`,
    details: { source: sources.maxDepth, issues: [issue] },
  });
}

/** The note `rlm run` prints when coordinator mode raised the depth, or `undefined`. */
export function coordinatorDepthNote(resolved: Sourced): string | undefined {
  if (resolved.sources.maxDepth !== COORDINATOR_DEPTH_SOURCE) return undefined;
  return `rlm: --mode coordinator runs at max depth ${resolved.config.maxDepth} (its root delegates to children with a REPL); pass ${CONFIG_KEYS.maxDepth.flag} to choose another.`;
}
