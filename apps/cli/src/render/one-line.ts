/** The first non-empty line of `text`, cut to `width` characters with `…`, and how many lines followed. */
export function oneLine(text: string, width: number): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '').trim();
  const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
  const room = Math.max(8, width - more.length);
  const cut = first.length > room ? `${first.slice(0, room - 1)}…` : first;
  return `${cut}${more}`;
}
