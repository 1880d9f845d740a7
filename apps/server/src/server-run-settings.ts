import type { JsonValue, RunSettings } from '@rlm/protocol';
import type { EffectiveBudget } from './run-engine.js';
import type { RunMeta } from './run-meta.js';
import type { ModelProfile } from './server-config.js';

/**
 * The run contract of one server run: the operator's profile (models, language, mode, drivers,
 * thinking) with the budget the request got after the server capped it, the request's answer
 * schema, and the escalation ladder a caller chose in place of the profile's.
 */
export function serverRunSettings(
  profile: ModelProfile,
  budget: EffectiveBudget,
  {
    outputSchema,
    escalation,
  }: {
    outputSchema?: Readonly<Record<string, JsonValue>> | undefined;
    escalation?: RunMeta['escalation'];
  } = {},
): RunSettings {
  const escalate = escalation?.escalate ?? profile.escalate;
  const escalateAfterErrors = escalation?.escalateAfterErrors ?? profile.escalateAfterErrors;
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
    ...(escalate === undefined ? {} : { escalate: [...escalate] }),
    ...(escalateAfterErrors === undefined ? {} : { escalateAfterErrors }),
  };
}
