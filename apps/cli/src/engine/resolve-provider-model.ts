import { type ResolveModelOptions, resolveModel } from '@rlm/executor';
import type { LanguageModel, ModelPricing, ReplLanguage } from '@rlm/protocol';

/** What the command line passes with a model id. */
export type CliModelOptions = Pick<ResolveModelOptions, 'thinking' | 'effort'> & {
  repl?: ReplLanguage;
  /** `--input-price`/`--output-price`: offline models bill at it (others are priced by the runner). */
  pricing?: ModelPricing | undefined;
};

/**
 * A provider model id (`anthropic/…`, `openai-compatible/…`) to its client, with the keys read
 * from `env`: what `resolveCliModel` does for every id but `testkit:<policy>`, without loading the
 * offline policies (@rlm/testkit and @rlm/eval), which a run on real models never calls.
 *
 * @throws RlmError `model.auth` for a missing key, `model.unknown_provider`, `config.invalid`
 */
export function resolveProviderModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  { repl: _repl, pricing: _pricing, ...clientOptions }: CliModelOptions = {},
): LanguageModel {
  return resolveModel(id, { env, ...clientOptions });
}
