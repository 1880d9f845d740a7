import type { DynamicContextInput } from './dynamic-context-input.js';
import type { SkillSpec } from './immutable-layers.js';
import type { AttributedLayerText } from './quote-agent-text.js';

/** What varies in the layered prompt: mutable texts, per-turn context, identity tag, skills. */
export interface LayeredPromptInput {
  /**
   * Current texts of layers 6–9: plain strings, or `{ content, by, version, at }` (what
   * `@rlm/memory`'s `promptLayers.current()` returns) so the prompt can say who wrote each one.
   * A missing layer uses its default seed.
   */
  mutable?: Readonly<Partial<Record<number, string | AttributedLayerText>>> | undefined;
  /** Layer 10: already rendered text, or the input of `buildDynamicContext`. Omitted → no layer 10. */
  dynamic?: string | DynamicContextInput | undefined;
  /** A short name for the agent in layer 3. @default DEFAULT_IDENTITY_TAG */
  identityTag?: string | undefined;
  /** Active skills listed in layer 5. @default [] */
  skills?: readonly SkillSpec[] | undefined;
}
