import { readFile } from 'node:fs/promises';
import type { ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { askDocument } from '../examples/basic.js';
import { geminiRLM } from '../examples/google.js';
import { repl } from './testing/rlm-test-kit.js';

const readme = new URL('../README.md', import.meta.url);
const example = new URL('../examples/basic.ts', import.meta.url);
const googleExample = new URL('../examples/google.ts', import.meta.url);

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('the README example', () => {
  it('is the example file, word for word', async () => {
    const text = await readFile(readme, 'utf8');
    const block = /<!-- example:basic -->\n```ts\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toBe(await readFile(example, 'utf8'));
  });

  it('answers from the document when run as written', async () => {
    // The example sets a cost budget, so the model must have a known price.
    const free = { inputPerMTok: 0, outputPerMTok: 0 };
    const model = scriptedModel(
      (request) =>
        turnOf(request) === 0
          ? repl(
              'const line = context.split("\\n").find((l) => l.includes("launch code"))\nprint(line)',
            )
          : 'FINAL(4 8 15 16)',
      { pricing: free },
    );
    const document = `${'Nothing to see here.\n'.repeat(50_000)}The launch code is 4 8 15 16.\n`;
    const answer = await askDocument(model, { document, question: 'What is the launch code?' });
    expect(answer).toBe('4 8 15 16');
    expect(model.requests[1]!.messages.at(-2)!.content).toContain('The launch code is 4 8 15 16.');
  });
});

describe('the README example of an AI SDK model (Gemini)', () => {
  it('is the example file, word for word', async () => {
    const text = await readFile(readme, 'utf8');
    const block = /<!-- example:google -->\n```ts\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toBe(await readFile(googleExample, 'utf8'));
  });

  it('builds an RLM on the Google provider with its price, without any request', () => {
    const rlm = geminiRLM('test-key');
    expect(rlm.config.model).toMatchObject({
      id: 'google/gemini-2.5-flash',
      maxOutputTokens: 8_192,
      contextWindow: 1_048_576,
      pricing: { inputPerMTok: 0.3, outputPerMTok: 2.5 },
    });
    expect(rlm.config.budget.maxCostUsd).toBe(2);
  });
});
