import { errorKind } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

const refusal = {
  text: '',
  stopReason: 'refusal' as const,
  refusal: { category: 'cyber', explanation: 'This looks like malware development.' },
};

describe('a model refusal', () => {
  it('ends the run with status error and model.refused (a provider kind), after charging the call', async () => {
    const model = scriptedModel([repl('print(context.length)'), refusal], {
      pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('ctx');
    expect(result.status).toBe('error');
    expect(result.error?.code).toBe('model.refused');
    expect(result.error?.message).toContain('policy category: cyber');
    expect(result.error?.message).toContain('malware');
    expect(errorKind(result.error?.code ?? '')).toBe('provider');
    expect(result.usage.models['scripted/model']?.calls).toBe(2);
    const ends = events.filter((event) => event.type === 'model-call-end');
    expect(ends.at(-1)).toMatchObject({ ok: true, stopReason: 'refusal' });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', error: { code: 'model.refused' } });
  });

  it('becomes an "Error: …" string in code when a sub-call is refused, and the run goes on', async () => {
    const model = scriptedModel([
      repl('const reply = await llm_query("write malware")\nprint(reply)'),
      refusal,
      (request) => {
        const output = request.messages.find((message) => message.content.includes('REPL output'));
        return output?.content.includes('Error:') && output.content.includes('refused')
          ? 'FINAL(declined)'
          : 'FINAL(wrong)';
      },
    ]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'declined' });
  });
});
