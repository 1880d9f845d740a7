import { describe, expect, it } from 'vitest';
import { assemblePrompt } from './layered/assemble-prompt.js';
import { promptReport, renderPromptReport } from './prompt-report.js';
import { SECTION_SEPARATOR } from './prompt-section.js';
import { promptVersion } from './prompt-version.js';
import { buildSystemPrompt } from './system/build-system-prompt.js';

describe('promptReport', () => {
  it('lists the included sections with sizes adding up to the prompt', () => {
    const config = {
      depth: 0,
      maxDepth: 3,
      mode: 'coordinator' as const,
      drivers: ['delegation-first'],
    };
    const report = promptReport(config);
    const text = buildSystemPrompt(config);
    expect(report.sections.map((section) => section.id)).toEqual([
      'identity',
      'environment',
      'delegation',
      'coordinator-workflow',
      'delegation-tips',
      'driver:delegation-first',
    ]);
    const sum = report.sections.reduce((total, section) => total + section.chars, 0);
    expect(sum + SECTION_SEPARATOR.length * (report.sections.length - 1)).toBe(text.length);
    expect(report.chars).toBe(text.length);
    expect(report.version).toBe(promptVersion(text));
  });

  it('reports the layers of a layered prompt', () => {
    const report = promptReport({ layered: { dynamic: 'Quiet.' }, compact: true });
    expect(report.kind).toBe('layered');
    expect(report.sections.map((section) => section.id)).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((id) => `layer-${id}`),
    );
    expect(report.sections[2]?.title).toBe('Resource economics (immutable, one-line summary)');
    expect(report.sections[5]?.title).toBe('Operational reality (immutable)');
    expect(report.version).toBe(assemblePrompt({ dynamic: 'Quiet.' }, { compact: true }).version);
  });
});

describe('renderPromptReport', () => {
  it('prints one row per section with its size, and the total', () => {
    const config = { depth: 1, maxDepth: 2 };
    const lines = renderPromptReport(config).split('\n');
    const report = promptReport(config);
    expect(lines[0]).toBe(`${report.label} · version ${report.version}`);
    expect(lines).toHaveLength(report.sections.length + 3);
    for (const [index, section] of report.sections.entries()) {
      expect(lines[index + 2]).toMatch(
        new RegExp(`^  ${section.id}\\s+${section.chars}  ${section.title}$`),
      );
    }
    expect(lines.at(-1)).toContain(String(report.chars));
  });
});
