import { describe, expect, it } from 'vitest';
import { answerFormat } from './answer-format.js';
import { systemPromptSections } from './system-prompt-sections.js';

const schema = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] };

describe('answerFormat', () => {
  it('shows the JSON Schema and how to answer with a value', () => {
    const text = answerFormat(schema);
    expect(text.startsWith('## Answer format')).toBe(true);
    expect(text).toContain(`\`\`\`json\n${JSON.stringify(schema, null, 2)}\n\`\`\``);
    expect(text).toContain('FINAL_VAR(name)');
  });
});

describe('the answer-format section', () => {
  it('comes after the workflow and before drivers at the root', () => {
    const ids = systemPromptSections({
      depth: 0,
      maxDepth: 2,
      output: schema,
      drivers: ['verify-before-final'],
    }).map((section) => section.id);
    expect(ids.indexOf('answer-format')).toBeGreaterThan(ids.indexOf('delegation-tips'));
    expect(ids.indexOf('answer-format')).toBe(ids.indexOf('driver:verify-before-final') - 1);
  });

  it('is at the root of a specialist prompt too, and never below the root', () => {
    const specialist = systemPromptSections({
      depth: 0,
      maxDepth: 1,
      systemPrompt: 'You are a clerk.',
      output: schema,
    });
    expect(specialist.map((section) => section.id)).toContain('answer-format');
    const child = systemPromptSections({ depth: 1, maxDepth: 3, output: schema });
    expect(child.map((section) => section.id)).not.toContain('answer-format');
  });
});
