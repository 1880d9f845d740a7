/** `850ms`, `4.2s`, `3m 07s`: short enough for a status line, precise where it matters. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}

/** `1,234` with grouping, independent of the machine's locale so output is stable. */
export function formatCount(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `$0.0012`, `$1.37`: four decimals below a dollar because single calls are that cheap. */
export function formatCost(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** `line 4` or `lines 3–7`: where a block was written in its turn's response. */
export function linesText({ start, end }: { start: number; end: number }): string {
  return start === end ? `line ${start}` : `lines ${start}–${end}`;
}
