import { createStore } from '@rlm/memory';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it, vi } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

const CONTEXT = `a context only this test hashes ${'x'.repeat(1000)}`;
const hashedTexts: string[] = [];

// Records what every SHA-256 in the executor is fed, to count the passes over the context.
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

describe('a checkpointed run', () => {
  it('hashes its context once, shared by run-start and the checkpoint', async () => {
    const store = await createStore({ kind: 'memory' });
    const { events, onEvent } = eventLog();
    hashedTexts.length = 0;
    const result = await testRLM({
      model: scriptedModel([repl('const x = 1'), 'FINAL_VAR(x)']),
      runStore: store.runs,
      onEvent,
      generateId: () => 'run-hash',
    }).completion(CONTEXT, { query: 'q' });
    expect(result.status).toBe('completed');
    expect(hashedTexts.filter((text) => text === CONTEXT)).toHaveLength(1);
    const start = events.find((event) => event.type === 'run-start');
    const checkpoint = await store.runs.latestCheckpoint('run-hash');
    expect(checkpoint).toBeDefined();
    expect(JSON.stringify(checkpoint)).toContain(
      (start as { context: { hash: string }[] }).context[0]!.hash,
    );
    await store.close();
  });
});
