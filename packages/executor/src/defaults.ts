/**
 * @packageDocumentation `@rlm/executor/defaults`: the defaults an app shows before it runs
 * anything (the model id, depth and iterations) and the values its configuration may take (the
 * Anthropic effort levels). The main entry exports the same constants.
 *
 * It exists so a command line can print its configuration or `--help` without loading the
 * executor and its provider SDKs (about 0.3 s). Nothing reachable from here may import them or zod.
 */

export {
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
} from './config/run-defaults.js';
export { ANTHROPIC_EFFORTS } from './models/anthropic-efforts.js';
export { DEFAULT_MODEL_ID } from './models/default-model-id.js';
