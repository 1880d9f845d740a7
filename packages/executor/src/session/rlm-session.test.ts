import type { ModelRequest } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** Which of the session's payloads ('a', 'bb', 'ccc') a request is about, from its metadata. */
function runOf(request: ModelRequest): number {
  const size = request.messages[0]?.content.match(/string of (\d+) characters/)?.[1];
  return Number(size);
}

describe('rlm.session()', () => {
  it('keeps one sandbox over three payloads: context_2, history_1 and earlier variables are visible', async () => {
    const thirdRunCode = [
      'const seen = [',
      '  context, context_1, context_2, carried, size2,',
      '  history_1.length, history_1.at(-1).content, history_0[0].content.slice(0, 12),',
      '  history === undefined ? "none" : history.length,',
      '].join("|")',
    ].join('\n');
    // Per payload: the code of turn 0, then the answer of turn 1.
    const script: Record<number, [string, string]> = {
      1: [repl('const carried = "from run 1"'), 'FINAL(first)'],
      2: [repl('const size2 = context_1.length'), 'FINAL(second)'],
      3: [repl(thirdRunCode), 'FINAL_VAR(seen)'],
    };
    const model = scriptedModel(
      (request) => script[runOf(request)]?.[Math.min(turnOf(request), 1)] ?? 'FINAL(unexpected)',
    );
    const session = testRLM({ model }).session();
    try {
      const first = await session.completion('a', { query: 'one' });
      const second = await session.completion('bb', { query: 'two' });
      const third = await session.completion('ccc', { query: 'three' });
      expect([first.answer, second.answer]).toEqual(['first', 'second']);
      expect(third.status).toBe('completed');
      const parts = third.answer!.split('|');
      expect(parts.slice(0, 5)).toEqual(['a', 'bb', 'ccc', 'from run 1', '2']);
      // Run 2's conversation: metadata, prompt, reply, output, prompt, FINAL reply.
      expect(parts[5]).toBe('6');
      expect(parts[6]).toBe('FINAL(second)');
      expect(parts[7]).toBe('Your context');
      expect(parts[8]).toBe('6');
      const thirdRun = model.requests.filter((request) => runOf(request) === 3);
      const prompt = lastMessage(thirdRun[0]!).content;
      expect(prompt).toContain('`context_0` through `context_2`');
      expect(prompt).toContain('`history_0` through `history_1`');
      expect(thirdRun[0]!.messages[0]!.content).toContain('which is `context_2`');
      const secondRun = model.requests.filter((request) => runOf(request) === 2);
      expect(lastMessage(secondRun[0]!).content).toContain(
        '`history` holds your earlier conversation',
      );
    } finally {
      await session.close();
    }
  });

  it('gives each run its own id and budget, and refuses runs after close()', async () => {
    const model = scriptedModel((request) =>
      turnOf(request) === 0 ? repl('const x = 1') : 'FINAL(done)',
    );
    const session = testRLM({ model }).session();
    const [one, two] = await Promise.all([session.completion('a'), session.completion('bb')]);
    expect(one.runId).not.toBe(two.runId);
    expect(one.usage.models['scripted/model']?.calls).toBe(2);
    expect(two.usage.models['scripted/model']?.calls).toBe(2);
    await session.close();
    const refused = await session.completion('ccc').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RlmError);
    expect((refused as RlmError).code).toBe('executor.cancelled');
  });

  it('gives every run of a dispatcher session working background tasks', async () => {
    const model = scriptedModel((request) => {
      if (!request.system?.includes('## Background tasks')) {
        return repl(`FINAL(${JSON.stringify(`done ${runOf(request)}`)})`);
      }
      return turnOf(request) === 0
        ? repl(
            'const r = await await_results([delegate("sub-task", { context: "x".repeat(context.length + 10) })])\nconst out = r.results.map((x) => x.taskId + ":" + x.summary).join()',
          )
        : 'FINAL_VAR(out)';
    });
    const session = testRLM({ model, maxDepth: 2, dispatcher: true }).session();
    try {
      const first = await session.completion('a');
      const second = await session.completion('bb');
      // `context` stays the first payload; task ids keep counting across the session.
      expect([first.answer, second.answer]).toEqual(['t1:done 11', 't2:done 11']);
    } finally {
      await session.close();
    }
  });
});
