import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../index.js';
import { lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** Filler text of `size` characters with one needle sentence at `at`. */
function haystack(size: number, { at, needle }: { at: number; needle: string }): string {
  const line = 'The quick brown fox jumps over the lazy dog while the archive hums quietly.\n';
  const filler = line.repeat(Math.ceil(size / line.length)).slice(0, size - needle.length);
  return filler.slice(0, at) + needle + filler.slice(at);
}

/** A policy that searches the context with a regex, prints what it found, then answers with it. */
const needlePolicy = scriptedModel((request) =>
  turnOf(request) === 0
    ? repl(
        'const m = context.match(/secret code is ([A-Z]+-\\d+)/)\nconst found = m ? m[1] : "none"\nprint(found)',
      )
    : 'FINAL_VAR(found)',
);

describe('end-to-end tasks', () => {
  it.each([1_000_000, 10_000_000])('finds a needle in %i characters', async (size) => {
    const context = haystack(size, {
      at: Math.floor(size * 0.73),
      needle: 'The secret code is QX-4417. ',
    });
    const result = await testRLM({ model: needlePolicy }).completion(context, {
      query: 'What is the secret code?',
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'QX-4417' });
  });

  it('aggregates 200 records with a batched llm_query fan-out', async () => {
    const records = Array.from({ length: 200 }, (_, id) => ({
      id,
      review: id % 3 === 0 ? `I love product ${id}` : `Product ${id} broke after a week`,
    }));
    const code = [
      'const labels = await llm_query_batched(context.map((r) => "Sentiment of: " + r.review))',
      'const positives = labels.filter((label) => label === "positive").length',
      'print(positives)',
    ].join('\n');
    const model = scriptedModel((request) =>
      turnOf(request) === 0 ? repl(code) : 'FINAL_VAR(positives)',
    );
    const subModel = scriptedModel(
      (request) => (lastMessage(request).content.includes('love') ? 'positive' : 'negative'),
      { id: 'scripted/sub' },
    );
    const result = await testRLM({ model, subModel, maxConcurrency: 16 }).completion(records, {
      query: 'How many reviews are positive?',
    });
    expect(result).toMatchObject({ status: 'completed', answer: '67' });
    expect(subModel.calls).toBe(200);
    expect(result.usage.models['scripted/sub']?.calls).toBe(200);
  });

  it('runs two RLMs concurrently without interference, a spinning one never stalling the other', async () => {
    const events: { run: string; event: RunEvent }[] = [];
    const spinner = createRLM({
      model: scriptedModel([repl('const mine = context; while (true) {}'), 'FINAL_VAR(mine)']),
      limits: { cpuSliceMs: 3000 },
      onEvent: (event) => void events.push({ run: 'spinner', event }),
    });
    const reader = createRLM({
      model: scriptedModel((request) =>
        turnOf(request) === 0 ? repl('const mine = context.toUpperCase()') : 'FINAL_VAR(mine)',
      ),
      onEvent: (event) => void events.push({ run: 'reader', event }),
    });
    const [spun, read] = await Promise.all([
      spinner.completion('context of run one'),
      reader.completion('context of run two'),
    ]);
    expect(read).toMatchObject({ status: 'completed', answer: 'CONTEXT OF RUN TWO' });
    expect(spun).toMatchObject({ status: 'completed', answer: 'context of run one' });
    const order = events.map(({ run, event }) => `${run}:${event.type}`);
    expect(order.indexOf('reader:run-end')).toBeLessThan(order.indexOf('spinner:block-end'));
  });
});
