import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it, vi } from 'vitest';
import { memoryTrajectorySink } from '../index.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';
import { recordedText } from '../trajectory/trajectory-recorder.js';

const hashedTexts: string[] = [];

// Records what every SHA-256 in the executor is fed, to count the passes over a prompt.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    createHash: (...args: Parameters<typeof crypto.createHash>) => {
      const hash = crypto.createHash(...args);
      const update = hash.update.bind(hash);
      // The executor feeds its hashes whole strings or buffers, never with an encoding.
      hash.update = ((data: string | Buffer) => {
        if (typeof data === 'string') hashedTexts.push(data);
        return update(data);
      }) as typeof hash.update;
      return hash;
    },
  };
});

describe('a recorded sub-call', () => {
  it('shortens and hashes a long prompt once for its exchange and its sub-call record', async () => {
    const prompt = `summarise ${'y'.repeat(30_000)}`;
    const sink = memoryTrajectorySink();
    hashedTexts.length = 0;
    const result = await testRLM({
      model: scriptedModel([
        repl('const s = await llm_query("summarise " + "y".repeat(30000))'),
        'FINAL_VAR(s)',
      ]),
      subModel: scriptedModel(() => 'short', { id: 'scripted/sub' }),
      trajectory: sink,
    }).completion('ctx', { query: 'q' });
    expect(result).toMatchObject({ status: 'completed', answer: 'short' });
    expect(hashedTexts.filter((text) => text === prompt)).toHaveLength(1);
    // The exchange still carries the shortened form.
    const tail = recordedText(prompt).slice(-40);
    expect(JSON.stringify(sink.records)).toContain(tail);
  });
});
