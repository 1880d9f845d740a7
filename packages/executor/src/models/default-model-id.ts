/**
 * The root model of the apps (`rlm` and `rlm-server`) when nothing else is configured: one id,
 * so the CLI and the server cannot drift apart. A `resolveModel` id.
 * @default 'anthropic/claude-sonnet-5-5'
 */
export const DEFAULT_MODEL_ID = 'anthropic/claude-sonnet-5-5';
