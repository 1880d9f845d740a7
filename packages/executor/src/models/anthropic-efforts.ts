/**
 * The effort levels an Anthropic model accepts (`output_config.effort`), lowest first: one list
 * for the client's schema and every app's configuration. Plain data, so the apps can validate a
 * configuration through `@rlm/executor/defaults` without loading the executor.
 */
export const ANTHROPIC_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
