import type { RunSettings } from '@rlm/protocol';
import { definedEntries, RlmError } from '@rlm/protocol';
import type { CliConfig } from '../config/config-schema.js';

/** How the runner names settings fields in its errors, in the CLI's own words. */
export const CLI_FIELD_NAMES = {
  'limits.maxCostUsd': '--max-cost',
  pricing: '--input-price and --output-price (USD per million tokens)',
  thinkingBudget: '--thinking-budget',
  effort: '--effort',
} as const;

/**
 * The run contract of one `rlm` invocation: its configuration (file, environment, flags) as
 * `RunSettings`. Drivers are read from files at the door and handed to the runner parsed.
 *
 * @throws RlmError `cli.usage` when only one of `--input-price` and `--output-price` is given
 */
export function cliRunSettings(config: CliConfig): RunSettings {
  const { inputPricePerMTok, outputPricePerMTok } = config;
  if ((inputPricePerMTok === undefined) !== (outputPricePerMTok === undefined)) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--input-price and --output-price go together (USD per million tokens); pass both for ${config.model}.`,
      details: { option: inputPricePerMTok === undefined ? '--input-price' : '--output-price' },
    });
  }
  return {
    model: config.model,
    ...(config.subModel === undefined ? {} : { subModel: config.subModel }),
    ...(config.taskModel === undefined ? {} : { dispatch: { model: config.taskModel } }),
    repl: config.repl,
    mode: config.mode,
    drivers: [],
    tools: config.tools,
    limits: definedEntries({
      maxIterations: config.maxIterations,
      maxDepth: config.maxDepth,
      maxTokens: config.maxTokens,
      maxCostUsd: config.maxCostUsd,
      maxWallTimeMs: config.maxWallTimeMs,
      maxSubcalls: config.maxSubcalls,
      maxConsecutiveErrors: config.maxConsecutiveErrors,
      blockTimeoutMs: config.blockTimeoutMs,
    }),
    ...(inputPricePerMTok === undefined || outputPricePerMTok === undefined
      ? {}
      : { pricing: { inputPerMTok: inputPricePerMTok, outputPerMTok: outputPricePerMTok } }),
    ...definedEntries({
      thinkingBudget: config.thinkingBudget,
      effort: config.effort,
      escalate: config.escalate,
      escalateAfterErrors: config.escalateAfterErrors,
    }),
    ...(config.cache === true ? { cache: cacheSettings(config) } : {}),
  };
}

/** `--cache` alone: the run store's SQLite file, shared by every run, no expiry. */
function cacheSettings(config: CliConfig): NonNullable<RunSettings['cache']> {
  return {
    store: 'sqlite',
    scope: config.cacheScope ?? 'shared',
    includeSampled: config.cacheIncludeSampled ?? false,
    ...definedEntries({ ttlMs: config.cacheTtlMs }),
  };
}
