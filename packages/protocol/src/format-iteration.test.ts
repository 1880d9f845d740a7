import { describe, expect, it } from 'vitest';
import { formatIteration } from './format-iteration.js';
import type { CodeBlock, REPLResult } from './repl-result.js';
import { truncationMarker } from './truncate-output.js';

function block(code: string, stdout: string): CodeBlock {
  const result: REPLResult = {
    stdout,
    stderr: '',
    locals: {},
    executionTime: 2,
    llmCalls: [],
    unawaitedCalls: {},
    finalAnswer: null,
    error: null,
  };
  return { code, result };
}

describe('formatIteration', () => {
  it('adds only the assistant message when the turn had no code', () => {
    expect(formatIteration({ response: 'Thinking.', codeBlocks: [] })).toEqual([
      { role: 'assistant', content: 'Thinking.' },
    ]);
  });

  it('labels the output of a single block without a number', () => {
    const messages = formatIteration({ response: 'r', codeBlocks: [block('print(1)', '1\n')] });
    expect(messages).toEqual([
      { role: 'assistant', content: 'r' },
      { role: 'user', content: 'REPL output:\n1' },
    ]);
  });

  it('puts every block of a turn into one numbered user message', () => {
    const messages = formatIteration({
      response: 'r',
      codeBlocks: [block('a', 'first\n'), block('b', '')],
    });
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({
      role: 'user',
      content: 'REPL output (block 1):\nfirst\n\nREPL output (block 2):\nNo output',
    });
  });

  it('cuts each block at the cap and says how much was cut', () => {
    const messages = formatIteration(
      { response: 'r', codeBlocks: [block('a', 'x'.repeat(30)), block('b', 'short')] },
      { maxCharacterLength: 10 },
    );
    const content = messages[1]?.content ?? '';
    expect(content).toContain(`REPL output (block 1):\n${'x'.repeat(10)}${truncationMarker(20)}`);
    expect(content).toContain('REPL output (block 2):\nshort');
  });

  it('cuts at 20,000 characters by default', () => {
    const messages = formatIteration({
      response: 'r',
      codeBlocks: [block('a', 'y'.repeat(20_005))],
    });
    expect(messages[1]?.content).toBe(`REPL output:\n${'y'.repeat(20_000)}${truncationMarker(5)}`);
  });
});
