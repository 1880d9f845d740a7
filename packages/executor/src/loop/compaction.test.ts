import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';
import { COMPACTED_NOTE, COMPACTION_PROMPT } from './compaction.js';

const SUMMARY = 'SUMMARY: three big prints so far, nothing found yet.';

/**
 * A root that prints 1,500 characters in each of its first three turns, then reads `history`,
 * then answers. `usage` overrides what the fake reports (zeros: the loop must estimate).
 */
function growingModel(usage?: { inputTokens: number; outputTokens: number }) {
  let turn = 0;
  return scriptedModel(
    (request: ModelRequest) => {
      const reply = (text: string) => (usage === undefined ? text : { text, usage });
      if (lastMessage(request).content === COMPACTION_PROMPT) return reply(SUMMARY);
      turn += 1;
      if (turn <= 3) return reply(repl(`print("${turn}".repeat(1500))`));
      if (turn === 4) {
        return reply(
          repl(
            'const h = history.length + "|" + history[1].content.slice(0, 13) + "|" + history.filter((m) => m.content.includes("1111111111")).length',
          ),
        );
      }
      return reply('FINAL_VAR(h)');
    },
    { contextWindow: 1_000 },
  );
}

function ofType<T extends RunEvent['type']>(events: readonly RunEvent[], type: T) {
  return events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
}

describe('compaction', () => {
  it('summarises the root conversation at the window fraction, keeps it in `history`, and continues from the summary', async () => {
    const { events, onEvent } = eventLog();
    const model = growingModel();
    const result = await testRLM({ model, compaction: { fraction: 0.6 }, onEvent }).completion(
      'ctx',
    );
    expect(result.status).toBe('completed');
    const compactions = ofType(events, 'compaction-end');
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const summaryCalls = ofType(events, 'model-call-start').filter(
      (event) => event.purpose === 'summary',
    );
    expect(summaryCalls).toHaveLength(compactions.length);
    // The summary call counts like any other: 5 root turns plus the summaries.
    expect(result.usage.models['scripted/model']?.calls).toBe(5 + compactions.length);
    // The request right after the first compaction starts from the metadata and the summary.
    const firstSummary = model.requests.findIndex(
      (request) => lastMessage(request).content === COMPACTION_PROMPT,
    );
    const after = model.requests[firstSummary + 1]!;
    expect(after.messages[0]!.content).toMatch(/^Your context is a string/);
    expect(after.messages.slice(1, 3)).toEqual([
      { role: 'assistant', content: SUMMARY },
      { role: 'user', content: COMPACTED_NOTE },
    ]);
    expect(after.messages.length).toBeLessThan(model.requests[firstSummary]!.messages.length);
    // `history` holds the whole conversation: the first turn prompt and the first big output.
    const [length, firstPrompt, withFirstOutput] = result.answer!.split('|');
    expect(Number(length)).toBeGreaterThanOrEqual(compactions[0]!.messagesBefore);
    expect(firstPrompt).toBe('You have not ');
    expect(withFirstOutput).toBe('1');
  });

  it('estimates the size from characters when the model reports no usage', async () => {
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: growingModel({ inputTokens: 0, outputTokens: 0 }),
      compaction: { fraction: 0.6 },
      onEvent,
    }).completion('ctx');
    expect(result.status).toBe('completed');
    expect(ofType(events, 'compaction-end').length).toBeGreaterThanOrEqual(1);
  });

  it('never compacts without the option', async () => {
    const { events, onEvent } = eventLog();
    const model = growingModel();
    await testRLM({ model, onEvent }).completion('ctx');
    expect(ofType(events, 'compaction-end')).toHaveLength(0);
    expect(
      model.requests.some((request) => lastMessage(request).content === COMPACTION_PROMPT),
    ).toBe(false);
    // The conversation did outgrow the fraction the other tests use.
    expect(model.requests.at(-1)!.messages.length).toBeGreaterThan(10);
  });
});
