import { RlmError } from '@rlm/protocol';

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1_000, m: 1_000_000 };

/**
 * Reads a context size in characters: `8000`, `8k`, `128k`, `1m`, `10m`, `1.5m` (decimal units,
 * since sizes count characters, not bytes).
 *
 * @throws RlmError `cli.usage` naming `option` when the text is not a positive size
 */
export function parseSize(text: string, option = '--sizes'): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  const value =
    match === null ? Number.NaN : Number(match[1]) * (UNITS[(match[2] ?? '').toLowerCase()] ?? 1);
  if (!Number.isFinite(value) || value < 1) {
    throw new RlmError({
      code: 'cli.usage',
      message: `${option}: expected sizes like 8k, 128k or 1m, got "${text}"`,
      details: { option },
    });
  }
  return Math.round(value);
}

/** Formats a size the way `parseSize` reads it (`128k`, `1m`, `1.5m`). */
export function formatSize(chars: number): string {
  if (chars >= 1_000_000) return `${trim(chars / 1_000_000)}m`;
  if (chars >= 1_000) return `${trim(chars / 1_000)}k`;
  return String(chars);
}

function trim(value: number): string {
  return String(Number(value.toFixed(2)));
}
