/**
 * A short badge per mark of a timeline row (a sub-call's cache hit or escalation, in words):
 * ⚡ a cache hit, ⇧ an escalation; the words are the badge's title and the row's.
 */
export function markBadges(marks: readonly string[]): HTMLElement[] {
  return marks.map((mark) => {
    const badge = document.createElement('span');
    badge.className = 'tl-mark';
    badge.textContent = mark.startsWith('cache hit') ? '⚡' : '⇧';
    badge.title = mark;
    return badge;
  });
}
