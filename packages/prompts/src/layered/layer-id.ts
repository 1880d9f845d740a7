/** A layer of the layered prompt: 0–5 immutable, 6–9 mutable, 10 dynamic. */
export type LayerId = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10;

/** A layer the agent (through @rlm/memory) may rewrite. */
export type MutableLayerId = 6 | 7 | 8 | 9;

/** Whether a layer is fixed in code, stored and editable, or built per turn. */
export type LayerMutability = 'immutable' | 'mutable' | 'dynamic';

/** Every layer id, in prompt order. */
export const LAYER_IDS: readonly LayerId[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** The layers fixed in code. */
export const IMMUTABLE_LAYER_IDS: readonly LayerId[] = [0, 1, 2, 3, 4, 5];

/** The layers whose text the caller supplies (default seeds in `DEFAULT_LAYER_SEEDS`). */
export const MUTABLE_LAYER_IDS: readonly MutableLayerId[] = [6, 7, 8, 9];

/** The per-turn layer built by `buildDynamicContext`. */
export const DYNAMIC_LAYER_ID = 10;

/** Layer titles, shown in each layer's header and by `listLayers`. */
export const LAYER_TITLES: Readonly<Record<LayerId, string>> = {
  0: 'Interpretation and precedence',
  1: 'Constitution',
  2: 'Resource economics',
  3: 'Identity',
  4: 'Ethics of cooperation',
  5: 'Operational reality',
  6: 'Decision loop',
  7: 'Inbound message handling',
  8: 'Memory and learning',
  9: 'Self-modification guardrails',
  10: 'Dynamic context',
};

/** True for an integer 0–10. */
export function isLayerId(value: unknown): value is LayerId {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 10;
}

/** True for 6, 7, 8 or 9. */
export function isMutableLayerId(value: unknown): value is MutableLayerId {
  return isLayerId(value) && value >= 6 && value <= 9;
}

/** Whether `layerId` is immutable, mutable or dynamic. */
export function layerMutability(layerId: LayerId): LayerMutability {
  if (layerId <= 5) return 'immutable';
  return layerId === DYNAMIC_LAYER_ID ? 'dynamic' : 'mutable';
}
