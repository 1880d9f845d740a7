/** One named part of an assembled prompt, kept separate so reports can show what was included. */
export interface PromptSection {
  /** Stable id, such as `environment`, `delegation` or `driver:verify-before-final`. */
  id: string;
  /** Human-readable name for reports. */
  title: string;
  /** The text exactly as it appears in the prompt. */
  text: string;
}

/** What separates sections of an RLM system prompt: one blank line. */
export const SECTION_SEPARATOR = '\n\n';

/** Joins sections into the prompt text, in order. */
export function joinSections(sections: readonly PromptSection[]): string {
  return sections.map((section) => section.text).join(SECTION_SEPARATOR);
}
