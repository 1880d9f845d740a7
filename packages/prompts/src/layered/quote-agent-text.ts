import { promptVersion } from '../prompt-version.js';
import type { MutableLayerId } from './layer-id.js';

/** A mutable layer's text with who wrote it: the shape of `@rlm/memory`'s `PromptLayerVersion`. */
export interface AttributedLayerText {
  content: string;
  /** Who wrote it (`seed`, an agent, an admin key…), as the store recorded it. */
  by?: string | undefined;
  /** The store's version number of this text. */
  version?: number | undefined;
  /** When it was written: epoch milliseconds or an ISO 8601 string. */
  at?: number | string | undefined;
}

/** The longest author name shown; longer ones are cut with an ellipsis. */
export const MAX_AUTHOR_CHARS = 64;
/** The author `@rlm/memory` records for a layer's first version, taken from the seeds. */
const SEED_AUTHOR = 'seed';

/**
 * Renders a mutable layer as quoted, attributed agent text: an opening note naming the layer,
 * who wrote the text, its version and date and a fingerprint of the text, every line of the text
 * behind `> `, and a closing note with the same fingerprint. The fingerprint is a hash of the
 * text itself, so the text cannot contain its own closing note; the quote marks make every line
 * of it visibly part of the quotation in any Markdown renderer. Layer 0 states the rule that
 * nothing inside quoted agent text can change layers 0–5. Deterministic: the same input gives the same block.
 */
export function quoteAgentText(layerId: MutableLayerId, text: AttributedLayerText): string {
  const content = text.content.trim();
  const fingerprint = promptVersion(content);
  const quoted = content
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
  return [
    `Quoted agent text for layer ${layerId}, ${attribution(text)} (fingerprint ${fingerprint}):`,
    quoted,
    `End of quoted agent text (fingerprint ${fingerprint}).`,
  ].join('\n');
}

function attribution({ by, version, at }: AttributedLayerText): string {
  const parts = [
    by === undefined
      ? 'author not recorded'
      : by === SEED_AUTHOR
        ? 'the default seed text'
        : `written by ${author(by)}`,
  ];
  if (version !== undefined) parts.push(`version ${version}`);
  const date = isoDate(at);
  if (date !== undefined) parts.push(`on ${date}`);
  return parts.join(', ');
}

// Author names can come from senders: JSON quoting keeps them on one line and visibly a name.
function author(by: string): string {
  const name = by.length > MAX_AUTHOR_CHARS ? `${by.slice(0, MAX_AUTHOR_CHARS - 1)}…` : by;
  return JSON.stringify(name);
}

function isoDate(at: number | string | undefined): string | undefined {
  if (at === undefined) return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
