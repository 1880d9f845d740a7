import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, testRLM } from '../testing/rlm-test-kit.js';

describe('where a block was written', () => {
  it('records the response lines between each block’s fences in its block-start event', async () => {
    const reply = [
      'Two steps.',
      '```repl',
      'const n = context.length;',
      'print(n)',
      '```',
      'And then:',
      '```repl',
      'FINAL_VAR(n)',
      '```',
    ].join('\n');
    const model = scriptedModel([reply]);
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('abc');
    expect(result.answer).toBe('3');
    const starts = events.filter((event) => event.type === 'block-start');
    expect(starts.map(({ code, startLine, endLine }) => ({ code, startLine, endLine }))).toEqual([
      { code: 'const n = context.length;\nprint(n)', startLine: 3, endLine: 4 },
      { code: 'FINAL_VAR(n)', startLine: 8, endLine: 8 },
    ]);
  });
});
