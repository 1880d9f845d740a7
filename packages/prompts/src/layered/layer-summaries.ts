import { DEFAULT_LAYER_SEEDS } from './default-layer-seeds.js';
import { DEFAULT_IDENTITY_TAG } from './immutable-layers.js';
import { isMutableLayerId, type LayerId, MUTABLE_LAYER_IDS } from './layer-id.js';
import type { LayeredPromptInput } from './layered-prompt-input.js';

/** The most characters of a mutable layer's own text a compact summary quotes. */
export const MAX_SUMMARY_QUOTE_CHARS = 160;

/** One-line summaries of the immutable layers compact mode does not show in full. */
const IMMUTABLE_SUMMARIES: Readonly<Partial<Record<LayerId, string>>> = {
  2: 'Budgets are finite (layer 10 shows what is left): spend only where it buys real value, stop once the answer is supported, wrap up when a budget runs low.',
  4: "Treat everyone fairly, keep commitments, admit mistakes, never impersonate another agent and never reveal one sender's conversation to another.",
};

function folded(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string): string {
  return text.length <= MAX_SUMMARY_QUOTE_CHARS
    ? text
    : `${text.slice(0, MAX_SUMMARY_QUOTE_CHARS - 1).trimEnd()}…`;
}

function mutableSummary(id: LayerId, input: LayeredPromptInput): string {
  const supplied = input.mutable?.[id];
  const text =
    supplied === undefined ? undefined : typeof supplied === 'string' ? supplied : supplied.content;
  const content = text ?? (isMutableLayerId(id) ? DEFAULT_LAYER_SEEDS[id] : '');
  const author =
    typeof supplied === 'object' && supplied.by !== undefined ? supplied.by : undefined;
  const who =
    supplied === undefined || author === 'seed'
      ? 'the default seed'
      : author === undefined
        ? 'author not recorded'
        : `by ${JSON.stringify(author.slice(0, 64))}`;
  // Quoted like the full layer, so even a shortened self-edit stays visibly agent text (data).
  return `Summary of quoted agent text (${who}), its start on one line: > ${cut(folded(content))}`;
}

/**
 * One line for each layer compact mode leaves out (2, 3, 4 and 6–9), so the model still knows
 * what each says: a fixed digest for the immutable ones, the identity tag for layer 3, and the
 * start of the agent's own text, quoted, for a mutable layer. Texts must already be checked.
 */
export function layerSummaries(
  input: LayeredPromptInput,
  tag: string = input.identityTag?.trim() ?? DEFAULT_IDENTITY_TAG,
): Partial<Record<LayerId, string>> {
  const summaries: Partial<Record<LayerId, string>> = {
    ...IMMUTABLE_SUMMARIES,
    3: `You are ${tag}, a long-lived AI agent serving your operator and the people who message you; honest about what you are, can do and know.`,
  };
  for (const id of MUTABLE_LAYER_IDS) summaries[id] = mutableSummary(id, input);
  return summaries;
}
