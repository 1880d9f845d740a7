import { joinSections } from '../prompt-section.js';
import type { SystemPromptOptions } from './system-prompt-options.js';
import { systemPromptSections } from './system-prompt-sections.js';

/**
 * The system prompt for an RLM at `depth`, built from sections (see `systemPromptSections` for the
 * rules). Record `promptVersion(text)` with the run.
 *
 * @throws RlmError `config.invalid`, `prompts.driver_not_found`, `prompts.driver_conflict`
 * @example
 * const system = buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'coordinator', childBudget: 8 });
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  return joinSections(systemPromptSections(options));
}

/** Options of `buildSpecialistPrompt`: the system prompt options with the caller's text required. */
export type SpecialistPromptOptions = SystemPromptOptions & { systemPrompt: string };

/**
 * A specialist child's prompt: the caller's `systemPrompt`, then the REPL environment (and the
 * delegation sections only if this child can delegate itself). Same as `buildSystemPrompt` with
 * `systemPrompt` set.
 *
 * @throws RlmError `config.invalid` for bad options
 * @example
 * buildSpecialistPrompt({ depth: 1, maxDepth: 2, systemPrompt: 'You are a meticulous contract lawyer.' });
 */
export function buildSpecialistPrompt(options: SpecialistPromptOptions): string {
  return buildSystemPrompt(options);
}
