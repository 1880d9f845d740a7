import { RlmError } from '@rlm/protocol';
import { buildDynamicContext } from './build-dynamic-context.js';
import { DEFAULT_LAYER_SEEDS } from './default-layer-seeds.js';
import {
  DEFAULT_IDENTITY_TAG,
  LAYER_0_INTERPRETATION,
  LAYER_1_CONSTITUTION,
  LAYER_2_RESOURCE_ECONOMICS,
  LAYER_4_ETHICS,
  layer3Identity,
  layer5OperationalReality,
  MAX_IDENTITY_TAG_CHARS,
  skillSpecSchema,
} from './immutable-layers.js';
import { isMutableLayerId, type LayerId, MUTABLE_LAYER_IDS } from './layer-id.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';
import { validateLayerUpdate } from './validate-layer-update.js';

function checkIdentityTag(tag: string): string {
  const trimmed = tag.trim();
  let reason: string | undefined;
  if (trimmed.length === 0) reason = 'expected a non-empty identity tag';
  else if (/[\r\n]/.test(trimmed)) reason = 'expected the identity tag on one line';
  else if (trimmed.length > MAX_IDENTITY_TAG_CHARS) {
    reason = `expected an identity tag of at most ${MAX_IDENTITY_TAG_CHARS} characters, got ${trimmed.length}`;
  }
  if (reason === undefined) return trimmed;
  throw new RlmError({
    code: 'prompts.layer_invalid',
    message: `Layer 3 identity tag is invalid: ${reason}`,
    details: { layerId: 3, reason },
  });
}

function checkSkills(skills: LayeredPromptInput['skills']): void {
  for (const [index, skill] of (skills ?? []).entries()) {
    const result = skillSpecSchema.safeParse(skill);
    if (!result.success) {
      const reason = `skills.${index}: ${result.error.issues[0]?.message ?? 'invalid skill'}`;
      throw new RlmError({
        code: 'prompts.layer_invalid',
        message: `Layer 5 skills are invalid: ${reason}`,
        details: { layerId: 5, reason },
      });
    }
  }
}

/**
 * Validates the supplied mutable texts (stored text is re-checked, so a tampered store cannot smuggle
 * an override in) and returns the text of every layer 6–9, falling back to the seeds.
 */
function mutableTexts(mutable: LayeredPromptInput['mutable']): Record<6 | 7 | 8 | 9, string> {
  const texts = { ...DEFAULT_LAYER_SEEDS };
  for (const [key, content] of Object.entries(mutable ?? {})) {
    if (content === undefined) continue;
    const layerId = Number(key);
    const result = validateLayerUpdate(layerId, content);
    if (!result.ok) throw result.error;
    if (isMutableLayerId(layerId)) texts[layerId] = content.trim();
  }
  return texts;
}

/**
 * The text of every layer for `input`, keyed by id; layer 10 is `undefined` when no dynamic
 * context was given.
 *
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt`, `protocol.invalid_config`
 */
export function layerTexts(
  input: LayeredPromptInput,
  { compact = false }: { compact?: boolean | undefined } = {},
): Record<LayerId, string | undefined> {
  const tag = checkIdentityTag(input.identityTag ?? DEFAULT_IDENTITY_TAG);
  checkSkills(input.skills);
  const mutable = mutableTexts(input.mutable);
  const dynamic =
    input.dynamic === undefined
      ? undefined
      : typeof input.dynamic === 'string'
        ? input.dynamic
        : buildDynamicContext(input.dynamic, { compact });
  const texts: Record<LayerId, string | undefined> = {
    0: LAYER_0_INTERPRETATION,
    1: LAYER_1_CONSTITUTION,
    2: LAYER_2_RESOURCE_ECONOMICS,
    3: layer3Identity(tag),
    4: LAYER_4_ETHICS,
    5: layer5OperationalReality(input.skills ?? []),
    6: undefined,
    7: undefined,
    8: undefined,
    9: undefined,
    10: dynamic,
  };
  for (const id of MUTABLE_LAYER_IDS) texts[id] = mutable[id];
  return texts;
}
