import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { type ScriptedModel, scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { tokensOf } from '../run/budget-scope.js';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

type Escalation = Extract<RunEvent, { type: 'escalation' }>;

/** A root that hands the task to one child on `model` and answers with what it returns. */
function rootModel(model: string): ScriptedModel {
  return scriptedModel(() =>
    repl(`const r = await rlm_query("solve it", { model: "${model}" });\nFINAL(r)`),
  );
}

/** A worker whose turns fail until turn `failures`, then answer `answer`. */
function worker(id: string, { failures, answer }: { failures: number; answer?: string }) {
  return scriptedModel(
    (_request: ModelRequest, index: number) => {
      if (index < failures) return repl('throw new Error("stuck")');
      return answer === undefined ? repl('print("thinking")') : repl(`FINAL("${answer}")`);
    },
    { id, maxOutputTokens: 40 },
  );
}

/** A worker that never answers: it prints, and its default-answer reply has no FINAL. */
function silent(id: string) {
  return scriptedModel(() => repl('print("still looking")'), { id, maxOutputTokens: 40 });
}

function escalations(events: readonly RunEvent[]): Escalation[] {
  return events.filter((event): event is Escalation => event.type === 'escalation');
}

describe('escalation ladder', () => {
  it('runs a child stuck on errors again on the next rung after escalateAfterErrors (3) failed turns, the event carrying the count', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      maxDepth: 2,
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('42');
    // Three failed turns, not the five that stop any run.
    expect(cheap.requests).toHaveLength(3);
    expect(strong.requests.length).toBeGreaterThan(0);
    const [escalation, ...more] = escalations(events);
    expect(more).toEqual([]);
    expect(escalation).toMatchObject({
      fromModel: 'cheap',
      toModel: 'strong',
      reason: 'errors',
      consecutiveErrors: 3,
      attempt: 1,
      depth: 0,
    });
    const starts = events.filter((event) => event.type === 'subcall-start');
    expect(starts.map((event) => event.childRunId)).toEqual([
      escalation?.childRunId,
      escalation?.toChildRunId,
    ]);
    expect(starts[0]?.callId).toBe(escalation?.callId);
  });

  it('does not escalate a child that fails N-1 turns and then answers', async () => {
    const cheap = worker('cheap', { failures: 2, answer: '7' });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      maxDepth: 2,
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('7');
    expect(strong.requests).toHaveLength(0);
    expect(escalations(events)).toEqual([]);
  });

  it('takes the run’s escalateAfterErrors instead of the default, and the event says how many failed', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      escalateAfterErrors: 2,
      maxDepth: 2,
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('42');
    expect(cheap.requests).toHaveLength(2);
    expect(escalations(events)).toMatchObject([{ reason: 'errors', consecutiveErrors: 2 }]);
  });

  it('escalates a child whose turns run out without an answer', async () => {
    const cheap = silent('cheap');
    const strong = worker('strong', { failures: 0, answer: '42' });
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      maxDepth: 2,
      iterationsForDepth: [4, 2],
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('42');
    expect(escalations(events)).toMatchObject([
      { fromModel: 'cheap', toModel: 'strong', reason: 'no-answer', attempt: 1 },
    ]);
    // Its turns did not fail: no count of errors to report.
    expect(escalations(events)[0]).not.toHaveProperty('consecutiveErrors');
  });

  it('never runs a child on the last rung again, and runs an escalated child again at most once', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const mid = worker('mid', { failures: 99 });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const last = worker('strong', { failures: 99 });
    const onLast = eventLog();
    const lastRung = await testRLM({
      model: rootModel('strong'),
      models: [last],
      escalate: [cheap, last],
      maxDepth: 2,
      maxIterations: 20,
      onEvent: onLast.onEvent,
    }).completion('ctx');
    expect(escalations(onLast.events)).toEqual([]);
    expect(lastRung.answer).toMatch(/^Error: child run/);
    // Nothing to escalate to: the child keeps the run's own limit of five failed turns.
    expect(last.requests).toHaveLength(5);
    expect(cheap.requests).toHaveLength(0);

    const once = eventLog();
    const twice = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, mid, strong],
      maxDepth: 2,
      onEvent: once.onEvent,
    }).completion('ctx');
    expect(escalations(once.events)).toMatchObject([{ fromModel: 'cheap', toModel: 'mid' }]);
    expect(twice.answer).toMatch(/^Error: child run/);
    expect(strong.requests).toHaveLength(0);
  });

  it('keeps the escalated child inside the tree budget', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const strong = worker('strong', { failures: 99 });
    const { events, onEvent } = eventLog();
    const maxTokens = 30_000;
    const result = await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      maxDepth: 2,
      budget: { maxTokens },
      onEvent,
    }).completion('ctx');
    const largest = Math.max(
      ...events.map((event) =>
        event.type === 'model-call-end' && event.usage !== undefined
          ? event.usage.inputTokens + event.usage.outputTokens
          : 0,
      ),
    );
    expect(escalations(events)).toHaveLength(1);
    expect(tokensOf(result.usage)).toBeLessThanOrEqual(maxTokens + largest);
    // The second child gets its share of what the tree has left after the first, not a fresh one.
    const stated = /at most \d+ turns?, (\d+) tokens/.exec(strong.requests[0]?.system ?? '')?.[1];
    expect(Number(stated)).toBeLessThan(maxTokens / 2);
  });

  it('does not escalate when the tree has no sub-call left for the second child', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const { events, onEvent } = eventLog();
    await testRLM({
      model: rootModel('cheap'),
      models: [cheap],
      escalate: [cheap, strong],
      maxDepth: 2,
      maxIterations: 1,
      budget: { maxSubcalls: 1 },
      onEvent,
    }).completion('ctx');
    expect(escalations(events)).toEqual([]);
    expect(strong.requests).toHaveLength(0);
  });

  it('escalates a coordinator’s background task the same way', async () => {
    const cheap = worker('cheap', { failures: 99 });
    const strong = worker('strong', { failures: 0, answer: '42' });
    const root = scriptedModel(() =>
      repl(
        'const id = delegate("solve it", { model: "cheap" })\nconst r = await await_results([id])\nFINAL(r.results[0].summary)',
      ),
    );
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: root,
      models: [cheap],
      escalate: [cheap, strong],
      promptMode: 'coordinator',
      maxDepth: 2,
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('42');
    expect(cheap.requests).toHaveLength(3);
    expect(escalations(events)).toMatchObject([{ toModel: 'strong', reason: 'errors' }]);
  });
});
