/** @packageDocumentation Test doubles for @rlm: scripted and replay models, fake Anthropic and OpenAI servers, policies. */

// ── Models ──────────────────────────────

export {
  DEFAULT_SCRIPTED_MODEL_ID,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  type ScriptedStepValue,
  type ScriptFunction,
  scriptedModel,
} from './scripted-model.js';

// ── Helpers ─────────────────────────────

export { estimateTokens } from './estimate-tokens.js';
export { sleep } from './sleep.js';
