import { formatSize } from '../generators/parse-size.js';
import type { SizePoint } from './summarize-rows.js';

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 56, right: 150, top: 24, bottom: 48 };
/** Systems with equal accuracy draw on top of each other: dash patterns keep every line visible. */
const DASHES = ['', '8 4', '2 3', '10 3 2 3'];
const COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

/**
 * A self-contained SVG line chart of accuracy (y, 0–100%) against context length (x, log scale),
 * one line per system, with a legend. No scripts, fonts or external references.
 */
export function renderAccuracyChart(
  points: readonly SizePoint[],
  { title = 'Accuracy vs context length' }: { title?: string } = {},
): string {
  const systems = [...new Set(points.map((point) => point.system))];
  const sizes = points.map((point) => point.contextChars).filter((size) => size > 0);
  // The axis spans the sizes measured (at least one decade, so a single size still has room).
  const minLog = sizes.length === 0 ? 3 : Math.log10(Math.min(...sizes));
  const maxLog = Math.max(sizes.length === 0 ? 4 : Math.log10(Math.max(...sizes)), minLog + 1);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (size: number) =>
    MARGIN.left + ((Math.log10(Math.max(size, 1)) - minLog) / (maxLog - minLog)) * plotWidth;
  const y = (accuracy: number) => MARGIN.top + (1 - accuracy) * plotHeight;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick * 100}%</text>`,
    );
  }
  for (const size of [...new Set(sizes)].sort((a, b) => a - b)) {
    parts.push(
      `<text x="${round(x(size))}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${formatSize(size)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">context length (characters, log scale)</text>`,
  );
  for (const [index, system] of systems.entries()) {
    const colour = COLOURS[index % COLOURS.length] as string;
    const dash = DASHES[index % DASHES.length] as string;
    const line = points
      .filter((point) => point.system === system)
      .sort((a, b) => a.contextChars - b.contextChars)
      .map((point) => ({ cx: round(x(point.contextChars)), cy: round(y(point.accuracy)) }));
    parts.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash === '' ? '' : ` stroke-dasharray="${dash}"`} points="${line.map(({ cx, cy }) => `${cx},${cy}`).join(' ')}"/>`,
    );
    for (const { cx, cy } of line)
      parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`);
    const legendY = MARGIN.top + 12 + index * 18;
    parts.push(
      `<rect x="${WIDTH - MARGIN.right + 16}" y="${legendY - 8}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${WIDTH - MARGIN.right + 32}" y="${legendY + 1}">${escapeXml(system)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
