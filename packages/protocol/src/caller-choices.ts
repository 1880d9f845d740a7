import { z } from 'zod';
import { jsonValueSchema } from './json-value.js';
import { replLanguageSchema } from './repl-language.js';
import { RlmError } from './rlm-error.js';
import {
  modelIdSchema,
  RUN_LIMIT_NAMES,
  type RunLimits,
  type RunSettings,
  runLimitsSchema,
  runModeSchema,
  runSettingsSchema,
} from './run-settings.js';

/**
 * What a caller over HTTP or MCP may ask of a run. It names no endpoint, credential or price:
 * those belong to the operator. A model (and each rung of an escalation ladder) is chosen by id
 * among the operator's allowed ones; limits can only be lowered.
 */
export const callerChoicesSchema = z.strictObject({
  model: modelIdSchema.optional(),
  repl: replLanguageSchema.optional(),
  mode: runModeSchema.optional(),
  drivers: z.array(z.string().min(1)).optional(),
  limits: runLimitsSchema.optional(),
  outputSchema: z.record(z.string(), jsonValueSchema).optional(),
  /** The escalation ladder, each rung among the allowed models (as `model`). */
  escalate: runSettingsSchema.shape.escalate,
  escalateAfterErrors: runSettingsSchema.shape.escalateAfterErrors,
});
export type CallerChoices = z.infer<typeof callerChoicesSchema>;

/**
 * What the operator lets callers choose. `allowedModels` always includes the operator's own model;
 * an empty list means callers may choose no other. `allowedDrivers` absent means any built-in.
 */
export interface CallerPolicy {
  allowedModels: readonly string[];
  allowedDrivers?: readonly string[] | undefined;
  /** Where the choices came from, for error messages (`rlm_query arguments`, `POST /v1/runs`). */
  source: string;
}

/**
 * The operator's settings with a caller's choices on top: a model only from the allowed list (so
 * a caller can never point the user's key at a host of its choosing), limits only lowered (a
 * higher value is capped at the operator's), everything else as the operator set it.
 *
 * @throws RlmError `config.invalid` naming the field and the allowed choices
 */
export function applyCallerChoices(
  base: RunSettings,
  choices: CallerChoices,
  policy: CallerPolicy,
): RunSettings {
  const settings: RunSettings = { ...base, limits: lowerLimits(base.limits, choices.limits ?? {}) };
  const allowed = new Set([base.model, ...policy.allowedModels]);
  if (choices.model !== undefined && choices.model !== base.model) {
    if (!allowed.has(choices.model)) {
      throw modelRefused({ field: 'model', model: choices.model }, [...allowed], policy.source);
    }
    settings.model = choices.model;
  }
  Object.assign(settings, chosenEscalation(choices, allowed, policy.source));
  if (choices.drivers !== undefined) {
    const allowed = policy.allowedDrivers;
    const refused =
      allowed === undefined ? [] : choices.drivers.filter((name) => !allowed.includes(name));
    if (refused.length > 0) {
      throw invalid(
        policy.source,
        `drivers: ${refused.join(', ')} cannot be chosen here (allowed: ${allowed?.join(', ') || 'none'})`,
      );
    }
    settings.drivers = choices.drivers;
  }
  if (choices.repl !== undefined) settings.repl = choices.repl;
  if (choices.mode !== undefined) settings.mode = choices.mode;
  if (choices.outputSchema !== undefined) settings.outputSchema = choices.outputSchema;
  return settings;
}

/**
 * A caller's escalation ladder and error count, as settings fields (none when not chosen). A rung
 * is a model the run may be sent to, so it answers to the same list as `model`.
 */
function chosenEscalation(
  { escalate, escalateAfterErrors }: CallerChoices,
  allowed: Set<string>,
  source: string,
): Pick<RunSettings, 'escalate' | 'escalateAfterErrors'> {
  escalate?.forEach((rung, index) => {
    if (!allowed.has(rung)) {
      throw modelRefused({ field: `escalate[${index}]`, model: rung }, [...allowed], source);
    }
  });
  return {
    ...(escalate === undefined ? {} : { escalate: [...escalate] }),
    ...(escalateAfterErrors === undefined ? {} : { escalateAfterErrors }),
  };
}

/** Each limit the lower of the two; a limit the operator left open takes the caller's value. */
export function lowerLimits(caps: RunLimits, requested: RunLimits): RunLimits {
  const limits: RunLimits = { ...caps };
  for (const name of RUN_LIMIT_NAMES) {
    const asked = requested[name];
    if (asked === undefined) continue;
    const cap = caps[name];
    limits[name] = cap === undefined ? asked : Math.min(cap, asked);
  }
  return limits;
}

/** `field` names the choice in the message: `model`, or a rung such as `escalate[1]`. */
function modelRefused(
  { field, model }: { field: string; model: string },
  allowed: readonly string[],
  source: string,
): RlmError {
  const endpoint = model.includes('@') || /^[a-z]+:\/\//i.test(model);
  const why = endpoint
    ? 'a caller cannot name an endpoint; the operator configures where requests go'
    : 'it is not among the models the operator allowed';
  return invalid(
    source,
    `${field}: "${model}" cannot be chosen here (${why}); allowed: ${allowed.join(', ')}`,
  );
}

function invalid(source: string, issue: string): RlmError {
  return new RlmError({
    code: 'config.invalid',
    message: `Invalid ${source}: ${issue}`,
    details: { source, issues: [issue] },
  });
}
