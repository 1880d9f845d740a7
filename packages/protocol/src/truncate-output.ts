/** Characters of each block's output shown to the model. */
export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/** The marker appended to cut text, saying how many characters were left out. */
export function truncationMarker(omitted: number): string {
  return `… + [${omitted} chars...]`;
}

/** Cuts `text` to `maxChars` and appends the marker; text within the cap is returned unchanged. */
export function truncateOutput(text: string, maxChars: number = DEFAULT_MAX_OUTPUT_CHARS): string {
  if (text.length <= maxChars) return text;
  return text.slice(0, maxChars) + truncationMarker(text.length - maxChars);
}
