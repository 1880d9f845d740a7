import { type ChatMessage, findCodeBlocks } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { labelledRecords } from '../tasks/labelled-records.js';
import { needleHaystack } from '../tasks/needle-haystack.js';
import { policies } from './policies.js';
import type { Policy } from './policy.js';

const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
  ...names: string[]
) => (...values: unknown[]) => Promise<unknown>;

interface LoopOptions {
  context: unknown;
  depth?: number;
  maxDepth?: number;
  calls?: string[];
}

/**
 * A minimal stand-in for the RLM loop (testkit cannot depend on the sandbox): runs each ```repl
 * block as an async function with the sandbox's globals, and resolves FINAL_VAR(answer).
 */
async function runLoop(policy: Policy, options: LoopOptions): Promise<string | undefined> {
  const { context, depth = 0, maxDepth = 1, calls = [] } = options;
  const llmQuery = async (prompt: string) => {
    calls.push(prompt.split('\n')[0] ?? '');
    return policy({ messages: [{ role: 'user', content: prompt }] });
  };
  const functions = {
    context,
    print: (..._values: unknown[]) => undefined,
    llm_query: llmQuery,
    llm_query_batched: (prompts: string[]) => Promise.all(prompts.map(llmQuery)),
    rlm_query: async (prompt: string, opts: { context?: unknown } = {}) =>
      depth + 1 <= maxDepth
        ? ((await runLoop(policy, {
            context: opts.context ?? prompt,
            depth: depth + 1,
            maxDepth,
            calls,
          })) ?? 'NONE')
        : llmQuery(`${prompt}\n\nContext:\n${String(opts.context)}`),
    grep: async (pattern: string, { max = 20 }: { max?: number } = {}) => {
      const lines = String(context)
        .split('\n')
        .filter((line) => new RegExp(pattern).test(line));
      return {
        matches: lines.slice(0, max).map((text, index) => ({ line: index + 1, text })),
        total: lines.length,
      };
    },
    __rlm: { depth, maxDepth },
  };
  const messages: ChatMessage[] = [
    { role: 'user', content: 'Your context is a string.' },
    { role: 'user', content: 'You have not seen the context yet.' },
  ];
  for (let turn = 0; turn < 4; turn += 1) {
    const reply = policy({ system: 'Use ```repl blocks.', messages });
    messages.push({ role: 'assistant', content: reply });
    let answer: unknown;
    for (const code of findCodeBlocks(reply)) {
      const run = new AsyncFunction(
        ...Object.keys(functions),
        `${code}\nreturn typeof answer === 'undefined' ? undefined : answer;`,
      );
      answer = await run(...Object.values(functions));
    }
    if (/^FINAL_VAR\(answer\)/m.test(reply) && answer !== undefined) return String(answer);
    messages.push({ role: 'user', content: 'REPL output: ok' });
  }
  return undefined;
}

describe('policies', () => {
  it('needleFinder explores first, then finds the needle through batched sub-calls', async () => {
    const task = needleHaystack({ chars: 60_000, seed: 11 });
    const policy = policies.needleFinder({ chunkChars: 10_000 });
    expect(policy({ messages: [{ role: 'user', content: 'start' }] })).toContain('```repl');
    const calls: string[] = [];
    expect(await runLoop(policy, { context: task.context, calls })).toBe(task.answer);
    expect(calls.length).toBeGreaterThanOrEqual(6);
  });

  it('needleFinder can use grep instead of chunking', async () => {
    const task = needleHaystack({ chars: 30_000, seed: 2 });
    const calls: string[] = [];
    expect(
      await runLoop(policies.needleFinder({ useGrep: true }), { context: task.context, calls }),
    ).toBe(task.answer);
    expect(calls).toHaveLength(1);
  });

  it('answers its own sub-call prompts from the prompt text', () => {
    const policy = policies.needleFinder();
    const ask = (content: string) => policy({ messages: [{ role: 'user', content }] });
    expect(ask('[testkit:needle] look\nfoo\nThe magic number is 42.\nbar')).toBe('42');
    expect(ask('[testkit:needle] look\nnothing here')).toBe('NONE');
  });

  it('chunkAndAggregate counts labels through batched classification', async () => {
    const task = labelledRecords({ count: 37, seed: 5 });
    const calls: string[] = [];
    const answer = await runLoop(policies.chunkAndAggregate({ target: 'billing', batchSize: 8 }), {
      context: task.context,
      calls,
    });
    expect(answer).toBe(String(task.counts['billing']));
    expect(calls).toHaveLength(5);
    const all = await runLoop(policies.chunkAndAggregate(), { context: task.records });
    expect(JSON.parse(all ?? '{}')).toEqual(task.counts);
  });

  it('delegateToChild hands halves to child loops that search their own context', async () => {
    const task = needleHaystack({ chars: 20_000, seed: 9, depth: 0.8 });
    expect(await runLoop(policies.delegateToChild(), { context: task.context, maxDepth: 1 })).toBe(
      task.answer,
    );
  });

  it('delegateToChild still answers when rlm_query falls back to a plain call at the depth limit', async () => {
    const task = needleHaystack({ chars: 20_000, seed: 4, depth: 0.1 });
    const calls: string[] = [];
    expect(
      await runLoop(policies.delegateToChild(), { context: task.context, maxDepth: 0, calls }),
    ).toBe(task.answer);
    expect(calls).toHaveLength(2);
  });
  it('searches every string of an array or object context (directory and glob contexts)', async () => {
    const task = needleHaystack({ chars: 20_000, seed: 3, depth: 0.6 });
    const files = { 'a/filler.txt': 'nothing here\n'.repeat(50), 'b/notes.md': task.context };
    const nested = ['no needle', { deeper: [task.context] }, 7];
    for (const context of [files, nested]) {
      expect(await runLoop(policies.needleFinder({ chunkChars: 5_000 }), { context })).toBe(
        task.answer,
      );
      expect(await runLoop(policies.delegateToChild(), { context, maxDepth: 1 })).toBe(task.answer);
    }
    const records = labelledRecords({ count: 23, seed: 8 });
    const [first, second] = [
      records.context.split('\n').slice(0, 10),
      records.context.split('\n').slice(10),
    ];
    const answer = await runLoop(policies.chunkAndAggregate(), {
      context: { 'jan.log': first.join('\n'), 'feb.log': second.join('\n') },
    });
    expect(JSON.parse(answer ?? '{}')).toEqual(records.counts);
  });

  it('write Python for a Python REPL: blocking calls, keyword arguments, no JavaScript', () => {
    const python = [
      policies.needleFinder({ language: 'python' }),
      policies.needleFinder({ language: 'python', useGrep: true }),
      policies.chunkAndAggregate({ language: 'python', target: 'billing' }),
      policies.delegateToChild({ language: 'python' }),
    ];
    const turn0: ChatMessage[] = [{ role: 'user', content: 'You have not seen the context yet.' }];
    const turn1: ChatMessage[] = [...turn0, { role: 'assistant', content: 'x' }];
    for (const policy of python) {
      const code = [turn0, turn1]
        .flatMap((messages) => findCodeBlocks(policy({ messages })))
        .join('\n');
      expect(code).toMatch(/^import json/m);
      expect(code).not.toMatch(/\b(await|const|let)\b|=>|\{ context|\.length\b/);
      expect(code).toMatch(/llm_query_batched\(|rlm_query\(.*context=piece/);
    }
    // Sub-calls are answered the same whichever language asked them.
    expect(
      python[0]?.({
        messages: [{ role: 'user', content: '[testkit:needle] x\nthe magic number is 7' }],
      }),
    ).toBe('7');
  });
});
