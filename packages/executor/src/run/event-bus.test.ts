import { runEventSchema } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

describe('run events', () => {
  it('emits every step in order, each a valid RunEvent of the run tree', async () => {
    const model = scriptedModel([repl('const r = await llm_query("hi")'), 'FINAL_VAR(r)']);
    const subModel = scriptedModel(['hello'], { id: 'scripted/sub' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model,
      subModel,
      onEvent,
      generateId: () => 'run-1',
    }).completion('ctx');
    expect(events.map((event) => event.type)).toEqual([
      'run-start',
      'iteration-start',
      'model-call-start',
      'model-call-end',
      'block-start',
      'subcall-start',
      'model-call-start',
      'model-call-end',
      'subcall-end',
      'block-end',
      'iteration-end',
      'iteration-start',
      'model-call-start',
      'model-call-end',
      'iteration-end',
      'final-answer',
      'run-end',
    ]);
    for (const event of events) {
      expect(runEventSchema.parse(event)).toEqual(event);
      expect(event).toMatchObject({
        runId: 'run-1',
        rootRunId: 'run-1',
        parentRunId: null,
        depth: 0,
      });
    }
    expect(events.at(-1)).toMatchObject({
      type: 'run-end',
      status: 'completed',
      answer: result.answer,
    });
  });

  it('keeps running when a handler throws or rejects', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(fine)']);
    let calls = 0;
    const onEvent = (): Promise<void> => {
      calls++;
      if (calls % 2 === 0) throw new Error('handler bug');
      return Promise.reject(new Error('async handler bug'));
    };
    const result = await testRLM({ model, onEvent }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'fine' });
    expect(calls).toBeGreaterThan(5);
  });

  it('streams the same events onEvent receives and ends after run-end', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(fine)']);
    const { events, onEvent } = eventLog();
    const streamed = [];
    for await (const event of testRLM({ model, onEvent }).stream('ctx')) streamed.push(event);
    expect(streamed).toEqual(events);
    expect(streamed.at(-1)?.type).toBe('run-end');
  });
});
