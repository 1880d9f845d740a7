/**
 * Escapes text for HTML element content and quoted attribute values: every character that could
 * open a tag, end an attribute or start an entity is replaced.
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
