import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM, DEFAULT_MAX_ITERATIONS, parseRLMConfig } from '../index.js';

const model = scriptedModel([]);

describe('RLM config', () => {
  it('applies the documented defaults', () => {
    const config = parseRLMConfig({ model });
    expect(config).toMatchObject({
      maxDepth: 1,
      maxIterations: DEFAULT_MAX_ITERATIONS,
      promptMode: 'solver',
      firstTurnGuard: true,
      isolation: 'worker',
      budget: { maxConsecutiveErrors: 5 },
      limits: { maxBlocksPerIteration: 10, maxOutputChars: 20_000 },
    });
  });

  it('names the field and what was expected when a value is bad', () => {
    expect(() => createRLM({ model, maxIterations: 0 })).toThrow(/maxIterations/);
    expect(() => createRLM({ model, budget: { maxTokens: -1 } })).toThrow(/budget\.maxTokens/);
    expect(() => createRLM({ model, limits: { memoryBytes: 1024 } })).toThrow(
      /16 MiB.*limits\.memoryBytes/s,
    );
    expect(() => createRLM({ model: { id: 'x' } as never })).toThrow(/LanguageModel.*at model/s);
  });

  it('rejects unknown fields and tools that shadow reserved names', () => {
    const tool = { description: 'd', call: async () => null };
    expect(() => createRLM({ model, maxDepht: 2 } as never)).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
    expect(() => createRLM({ model, tools: { llm_query: tool } })).toThrow(
      /reserved name.*tools\.llm_query/s,
    );
    expect(() => createRLM({ model, tools: { 'bad name': tool } })).toThrow(/identifiers/);
  });

  it('refuses a tool named like a context helper while the helpers are on, naming it', () => {
    const tool = { description: 'd', call: async () => null };
    expect(() => createRLM({ model, tools: { grep: tool } })).toThrow(
      /context helper.*prefix.*tools\.grep/s,
    );
    expect(() => createRLM({ model, contextHelpers: false, tools: { grep: tool } })).not.toThrow();
  });

  it('checks the coordination options and keeps tools from hiding dispatcher functions', () => {
    const tool = { description: 'd', call: async () => null };
    expect(() => createRLM({ model, confidenceThreshold: 1.5 })).toThrow(/confidenceThreshold/);
    expect(() => createRLM({ model, dispatch: { maxConcurrency: 0 } })).toThrow(
      /dispatch\.maxConcurrency/,
    );
    expect(() => createRLM({ model, compaction: { fraction: 0 } })).toThrow(/compaction\.fraction/);
    expect(() => createRLM({ model, runStore: {} as never })).toThrow(/RunStore.*runStore/s);
    expect(() => createRLM({ model, scratchpad: {} as never })).toThrow(/Scratchpad.*scratchpad/s);
    expect(() => createRLM({ model, promptMode: 'coordinator', tools: { inspect: tool } })).toThrow(
      /dispatcher function.*tools\.inspect/s,
    );
    // Without the dispatcher the name is free.
    expect(() => createRLM({ model, tools: { inspect: tool } })).not.toThrow();
    expect(parseRLMConfig({ model }).dispatch).toEqual({
      maxConcurrency: 4,
      taskTimeoutMs: 600_000,
      summaryChars: 500,
    });
  });
});

describe('completion input', () => {
  it('rejects a context that is not a string, array or object before starting', async () => {
    const rlm = createRLM({ model, isolation: 'inline' });
    await expect(rlm.completion(42 as never)).rejects.toMatchObject({
      code: 'protocol.invalid_payload',
    });
    expect(model.calls).toBe(0);
  });
});
