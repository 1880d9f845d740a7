import { describe, expect, it } from 'vitest';
import { BASELINE_SOLVER_PROMPT } from './baseline-solver-prompt.js';
import { delegationCapability } from './delegation-capability.js';
import { DISPATCHER } from './dispatcher-section.js';
import { ENVIRONMENT } from './environment.js';

function replBlocks(text: string): string[] {
  return [...text.matchAll(/```repl\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
}

describe('ENVIRONMENT', () => {
  it('documents every sandbox global and fact the model relies on', () => {
    const names = [
      '`context`',
      '`context_0`',
      '`history`',
      '`history_0`',
      '`print(...)`',
      '`console.log(...)`',
      '`FINAL(answer)`',
      '`FINAL_VAR(name)`',
      'must already exist',
      '`SHOW_VARS()`',
      '`__rlm`',
      '`parentRunId`',
      '`budget`',
      '20,000 characters',
      'Top-level `await`',
      '`await llm_query(prompt, { model })`',
      '`await llm_query_batched(prompts, { model })`',
      '"Error: …"',
      '`await grep(pattern, { flags, context: n, max, target })`',
      '`await find_all(pattern, { max, target })`',
      '`await count(pattern, { target })`',
      '`await lines(start, end, { target })`',
      '`await chunk(n, { overlap, target })`',
      '100–300 times faster',
    ];
    for (const name of names) expect(ENVIRONMENT, name).toContain(name);
  });
});

describe('delegation and dispatcher sections', () => {
  it('document child RLMs with their options and fan-out', () => {
    const text = delegationCapability(5);
    for (const name of [
      '`await rlm_query(prompt, { context, systemPrompt, model })`',
      '`await rlm_query_batched(',
      '`Promise.all`',
    ]) {
      expect(text).toContain(name);
    }
  });

  it('document every dispatcher verb', () => {
    for (const verb of [
      'delegate(task, { context, systemPrompt, model, tools })',
      'stream_results()',
      'await_results(ids, { timeoutMs })',
      'inspect(key)',
      'set_answer(content, { ready, confidence })',
      'delegate_batch(tasks)',
      'task:<id>',
    ]) {
      expect(DISPATCHER).toContain(verb);
    }
  });
});

describe('baseline worked examples', () => {
  it('show grep, chunking with a batched fan-out, and a recursive sub-call', () => {
    const blocks = replBlocks(BASELINE_SOLVER_PROMPT);
    expect(blocks.some((code) => code.includes('await grep('))).toBe(true);
    expect(
      blocks.some((code) => code.includes('await chunk(') && code.includes('llm_query_batched(')),
    ).toBe(true);
    expect(
      blocks.some((code) => code.includes('rlm_query(') && code.includes('Promise.all(')),
    ).toBe(true);
  });

  it('contain JavaScript that parses', () => {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      body: string,
    ) => unknown;
    for (const code of replBlocks(BASELINE_SOLVER_PROMPT))
      expect(() => new AsyncFunction(code)).not.toThrow();
    for (const code of replBlocks(DISPATCHER)) expect(() => new AsyncFunction(code)).not.toThrow();
  });
});
