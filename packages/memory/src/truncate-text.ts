/**
 * Cuts `text` to at most `maxChars` UTF-16 code units without splitting a surrogate pair: when
 * the cut would leave a lone high surrogate at the end, it keeps one unit fewer, so the result is
 * always a well-formed string (a lone surrogate would be replaced on JSON/UTF-8 round trips).
 */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, splitsPair ? maxChars - 1 : maxChars);
}
