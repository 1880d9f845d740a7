import type { JsonValue, RunSettings } from '@rlm/protocol';
import type { EffectiveBudget } from './run-engine.js';
import type { ModelProfile } from './server-config.js';

/**
 * The run contract of one server run: the operator's profile (models, language, mode, drivers,
 * thinking) with the budget the request got after the server capped it, and the request's answer
 * schema.
 */
export function serverRunSettings(
  profile: ModelProfile,
  budget: EffectiveBudget,
  outputSchema?: Readonly<Record<string, JsonValue>>,
): RunSettings {
  return {
    model: profile.model,
    ...(profile.subModel === undefined ? {} : { subModel: profile.subModel }),
    ...(profile.taskModel === undefined ? {} : { dispatch: { model: profile.taskModel } }),
    repl: profile.repl,
    mode: profile.mode,
    drivers: [...profile.drivers],
    tools: true,
    limits: { ...budget },
    ...(outputSchema === undefined ? {} : { outputSchema: { ...outputSchema } }),
    ...(profile.thinkingBudget === undefined ? {} : { thinkingBudget: profile.thinkingBudget }),
    ...(profile.effort === undefined ? {} : { effort: profile.effort }),
    ...(profile.cache === undefined ? {} : { cache: { ...profile.cache } }),
    ...(profile.escalate === undefined ? {} : { escalate: [...profile.escalate] }),
    ...(profile.escalateAfterErrors === undefined
      ? {}
      : { escalateAfterErrors: profile.escalateAfterErrors }),
  };
}
