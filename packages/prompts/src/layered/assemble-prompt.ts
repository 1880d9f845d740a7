import { RlmError } from '@rlm/protocol';
import { promptVersion } from '../prompt-version.js';
import type { ParseResult } from '../validation-result.js';
import {
  DYNAMIC_LAYER_ID,
  LAYER_IDS,
  LAYER_TITLES,
  type LayerId,
  type LayerMutability,
  layerMutability,
} from './layer-id.js';
import { layerSummaries } from './layer-summaries.js';
import { layerTexts, type MutableRendering } from './layer-texts.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';

/**
 * The most characters the assembled prompt may have without layer 10. 9,000 since layers 6–9 are
 * quoted with an attribution note: with the notes measured at their longest, the defaults take
 * about 6,400 and leave about 2,600 for the agent's own growth, as 8,000 did before.
 */
export const MAX_STATIC_PROMPT_CHARS = 9_000;

/** The line between layers: plain, visible and impossible to produce from quoted data. */
export const LAYER_SEPARATOR = `\n\n${'='.repeat(48)}\n\n`;

/** The layers compact mode keeps in full; every other layer is summarised in one line. */
export const COMPACT_LAYER_IDS: readonly LayerId[] = [0, 1, 5, 10];

/** Options of `assemblePrompt`. */
export interface AssemblePromptOptions {
  /**
   * Keep layers 0, 1, 5 and 10 in full and summarise each other layer in one line, with fewer
   * exchanges per sender. @default false
   */
  compact?: boolean | undefined;
}

/** One layer as it appears in an assembled prompt. */
export interface AssembledLayer {
  id: LayerId;
  title: string;
  mutability: LayerMutability;
  /** The layer's block including its header. */
  text: string;
  chars: number;
  /** True when compact mode shows the layer as a one-line summary instead of its full text. */
  summarised: boolean;
}

/** An assembled layered prompt with its parts and version. */
export interface AssembledPrompt {
  text: string;
  /** `promptVersion(text)`. */
  version: string;
  layers: AssembledLayer[];
  /** Characters of the prompt without layer 10; at most `MAX_STATIC_PROMPT_CHARS`. */
  staticChars: number;
}

/** The header line that opens a layer's block. */
export function layerHeader(id: LayerId): string {
  return `# Layer ${id}: ${LAYER_TITLES[id]} (${layerMutability(id)})`;
}

function tooLong(length: number): RlmError<'prompts.prompt_too_long'> {
  return new RlmError({
    code: 'prompts.prompt_too_long',
    message: `The layered prompt without layer 10 has ${length} characters; the maximum is ${MAX_STATIC_PROMPT_CHARS}`,
    details: { length, max: MAX_STATIC_PROMPT_CHARS },
  });
}

/**
 * Assembles the layered prompt of a long-lived agent: immutable layers 0–5 from code, mutable layers
 * 6–9 from `input.mutable` (validated; seeds when missing) and the per-turn layer 10, each under a
 * header and joined by `LAYER_SEPARATOR`. Compact mode keeps layers 0, 1, 5 and 10 in full and
 * gives every other layer one line (`layerSummaries`), so none is silently missing.
 *
 * @throws RlmError `prompts.prompt_too_long` when the text without layer 10 exceeds `MAX_STATIC_PROMPT_CHARS`
 * @throws RlmError `prompts.layer_immutable`, `prompts.layer_invalid`, `prompts.layer_too_long`,
 *   `prompts.layer_override_attempt` for bad mutable input
 * @example
 * const { text, version } = assemblePrompt({ mutable: { 6: myLoop }, dynamic: { pendingMessages } });
 */
export function assemblePrompt(
  input: LayeredPromptInput = {},
  { compact = false }: AssemblePromptOptions = {},
): AssembledPrompt {
  const layers = assembleLayers(input, { compact, checked: true, rendering: 'quoted' });
  const staticChars = staticLength(layers);
  if (staticChars > MAX_STATIC_PROMPT_CHARS) throw tooLong(staticChars);
  const text = layers.map((layer) => layer.text).join(LAYER_SEPARATOR);
  return { text, version: promptVersion(text), layers, staticChars };
}

/**
 * The characters the full (not compact) layered prompt for `input` has without layer 10, even
 * above `MAX_STATIC_PROMPT_CHARS`: what the limit is measured on.
 *
 * The texts are not checked (only measured), so this never throws for governed content. Each
 * mutable layer is measured with the longest attribution note (author, version and date) it can
 * get, so a prompt measured within the limit stays within it whoever writes the layer.
 */
export function measureStaticPrompt(input: LayeredPromptInput = {}): number {
  return staticLength(
    assembleLayers(
      { ...input, dynamic: undefined },
      { compact: false, checked: false, rendering: 'quoted-longest' },
    ),
  );
}

function assembleLayers(
  input: LayeredPromptInput,
  options: { compact: boolean; checked: boolean; rendering: MutableRendering },
): AssembledLayer[] {
  const { compact } = options;
  const texts = layerTexts(input, options);
  const summaries = compact ? layerSummaries(input) : {};
  const layers: AssembledLayer[] = [];
  for (const id of LAYER_IDS) {
    const summary = COMPACT_LAYER_IDS.includes(id) ? undefined : summaries[id];
    const body = summary === undefined ? texts[id] : `In one line: ${summary}`;
    if (body === undefined) continue;
    const block = `${layerHeader(id)}\n\n${body}`;
    layers.push({
      id,
      title: LAYER_TITLES[id],
      mutability: layerMutability(id),
      text: block,
      chars: block.length,
      summarised: summary !== undefined,
    });
  }
  return layers;
}

function staticLength(layers: readonly AssembledLayer[]): number {
  return layers
    .filter((layer) => layer.id !== DYNAMIC_LAYER_ID)
    .map((layer) => layer.text)
    .join(LAYER_SEPARATOR).length;
}

/**
 * Like `assemblePrompt`, but returns the error instead of throwing.
 *
 * @example
 * const result = safeAssemblePrompt({ mutable });
 * if (!result.ok) console.error(result.error.code);
 */
export function safeAssemblePrompt(
  input: LayeredPromptInput = {},
  options: AssemblePromptOptions = {},
): ParseResult<AssembledPrompt> {
  try {
    return { ok: true, value: assemblePrompt(input, options) };
  } catch (error) {
    if (RlmError.is(error)) return { ok: false, error };
    throw error;
  }
}
