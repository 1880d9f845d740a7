import { describe, expect, it } from 'vitest';
import { renderAccuracyChart } from './render-accuracy-chart.js';

describe('renderAccuracyChart', () => {
  const svg = renderAccuracyChart([
    { system: 'rlm', contextChars: 8_000, attempts: 2, accuracy: 1 },
    { system: 'rlm', contextChars: 1_000_000, attempts: 2, accuracy: 0.5 },
    { system: 'base <x>', contextChars: 8_000, attempts: 2, accuracy: 1 },
    { system: 'base <x>', contextChars: 1_000_000, attempts: 2, accuracy: 0 },
  ]);

  it('draws one line per system on a log x axis with labelled sizes', () => {
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain('>8k</text>');
    expect(svg).toContain('>1m</text>');
    // 100% sits on the top of the plot, 0% on its bottom.
    expect(svg).toContain('stroke-width="2" points="56,24 490,168"');
    expect(svg).toContain('stroke-dasharray="8 4" points="56,24 490,312"');
  });

  it('is self-contained and escapes system names', () => {
    expect(svg).not.toMatch(/<script|href=|@import/);
    expect(svg).toContain('base &#60;x&#62;');
    expect(renderAccuracyChart([])).toContain('</svg>');
  });
});
