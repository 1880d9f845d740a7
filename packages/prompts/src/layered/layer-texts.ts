import { RlmError } from '@rlm/protocol';
import { buildDynamicContext } from './build-dynamic-context.js';
import { checkLayerText } from './check-layer-text.js';
import { checkSkill } from './check-skill.js';
import { DEFAULT_LAYER_SEEDS } from './default-layer-seeds.js';
import { validateIdentityTag } from './identity-tag.js';
import {
  DEFAULT_IDENTITY_TAG,
  LAYER_0_INTERPRETATION,
  LAYER_1_CONSTITUTION,
  LAYER_2_RESOURCE_ECONOMICS,
  LAYER_4_ETHICS,
  layer3Identity,
  layer5OperationalReality,
  skillSpecSchema,
} from './immutable-layers.js';
import {
  isMutableLayerId,
  type LayerId,
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
} from './layer-id.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';
import { type AttributedLayerText, MAX_AUTHOR_CHARS, quoteAgentText } from './quote-agent-text.js';

function checkIdentityTag(tag: string): string {
  const result = validateIdentityTag(tag);
  if (!result.ok) throw result.error;
  return tag.trim();
}

function checkSkills(skills: LayeredPromptInput['skills'], checked: boolean): void {
  for (const [index, skill] of (skills ?? []).entries()) {
    // Stored skills are checked again, like stored layers, so a tampered store cannot smuggle an
    // override into immutable layer 5.
    const governed = checked ? checkSkill(skill) : { ok: true as const };
    if (!governed.ok) throw governed.error;
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

/** How mutable layers appear in `layerTexts`: as stored, quoted, or quoted with the longest note. */
export type MutableRendering = 'plain' | 'quoted' | 'quoted-longest';

// The longest attribution `quoteAgentText` can write, so a size measured with it is never
// exceeded once the real author, version and date are filled in.
const LONGEST_ATTRIBUTION = {
  by: 'x'.repeat(MAX_AUTHOR_CHARS),
  version: Number.MAX_SAFE_INTEGER,
  at: '+275760-09-13T00:00:00.000Z',
} as const;

/**
 * Validates the supplied mutable texts (stored text is re-checked, so a tampered store cannot smuggle
 * an override in) and returns the text of every layer 6–9, falling back to the seeds.
 */
function mutableTexts(
  mutable: LayeredPromptInput['mutable'],
  { checked, rendering }: { checked: boolean; rendering: MutableRendering },
): Record<MutableLayerId, string> {
  const texts: Record<MutableLayerId, AttributedLayerText> = {
    6: { content: DEFAULT_LAYER_SEEDS[6], by: 'seed' },
    7: { content: DEFAULT_LAYER_SEEDS[7], by: 'seed' },
    8: { content: DEFAULT_LAYER_SEEDS[8], by: 'seed' },
    9: { content: DEFAULT_LAYER_SEEDS[9], by: 'seed' },
  };
  for (const [key, supplied] of Object.entries(mutable ?? {})) {
    if (supplied === undefined) continue;
    const layerId = Number(key);
    const text = typeof supplied === 'string' ? { content: supplied } : supplied;
    const result = checked ? checkLayerText(layerId, text.content) : { ok: true as const };
    if (!result.ok) throw result.error;
    if (isMutableLayerId(layerId)) texts[layerId] = { ...text, content: text.content.trim() };
  }
  const render = (id: MutableLayerId): string => {
    const text = texts[id];
    if (rendering === 'plain') return text.content;
    return quoteAgentText(
      id,
      rendering === 'quoted' ? text : { ...LONGEST_ATTRIBUTION, content: text.content },
    );
  };
  return { 6: render(6), 7: render(7), 8: render(8), 9: render(9) };
}

/**
 * The text of every layer for `input`, keyed by id; layer 10 is `undefined` when no dynamic
 * context was given. `checked: false` skips the mutable layers' checks (for measuring sizes only).
 * `rendering` says how layers 6–9 appear: as stored (`plain`, the default), as quoted agent text
 * (`quoted`, what the model gets), or quoted with the longest attribution (`quoted-longest`, for
 * measuring an upper bound).
 *
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt`, `config.invalid`
 */
export function layerTexts(
  input: LayeredPromptInput,
  {
    compact = false,
    checked = true,
    rendering = 'plain',
  }: { compact?: boolean | undefined; checked?: boolean; rendering?: MutableRendering } = {},
): Record<LayerId, string | undefined> {
  const tag = checked
    ? checkIdentityTag(input.identityTag ?? DEFAULT_IDENTITY_TAG)
    : (input.identityTag ?? DEFAULT_IDENTITY_TAG).trim();
  checkSkills(input.skills, checked);
  const mutable = mutableTexts(input.mutable, { checked, rendering });
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
