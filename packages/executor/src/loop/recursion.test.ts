import { buildFlatPrompt } from '@rlm/prompts';
import { totalUsage } from '@rlm/protocol';
import { scriptedModel, sleep } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

describe('sub-calls from code', () => {
  it('sends llm_query to the sub-model and returns its text', async () => {
    const model = scriptedModel([
      repl('const r = await llm_query("ping")\nprint(r)'),
      'FINAL_VAR(r)',
    ]);
    const subModel = scriptedModel(() => 'pong', { id: 'scripted/sub' });
    const result = await testRLM({ model, subModel }).completion('ctx');
    expect(result.answer).toBe('pong');
    expect(subModel.requests[0]!.messages).toEqual([{ role: 'user', content: 'ping' }]);
    expect(Object.keys(result.usage.models).sort()).toEqual(['scripted/model', 'scripted/sub']);
  });

  it('keeps the order of llm_query_batched and turns a failed slot into an error string', async () => {
    const code =
      'const rs = await llm_query_batched(["a", "fail", "c", "d"])\nprint(JSON.stringify(rs))';
    const model = scriptedModel([repl(code), 'FINAL_VAR(rs)']);
    const subModel = scriptedModel(async (request) => {
      const prompt = lastMessage(request).content;
      await sleep(prompt === 'a' ? 60 : 5);
      return prompt === 'fail' ? new Error('upstream exploded') : prompt.toUpperCase();
    });
    const result = await testRLM({ model, subModel }).completion('ctx');
    const answers = JSON.parse(result.answer!) as string[];
    expect(answers[0]).toBe('A');
    expect(answers[1]).toMatch(/^Error: .*upstream exploded/);
    expect(answers.slice(2)).toEqual(['C', 'D']);
  });
});

describe('rlm_query', () => {
  it('runs a child at depth 1 with its own sandbox, code and context', async () => {
    const model = scriptedModel((request) => {
      const isChild = request.messages[0]!.content.includes('string of 5 characters');
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (isChild) {
        return turn === 0
          ? repl('const n = context.split(" ").length + ":" + typeof secret')
          : 'FINAL_VAR(n)';
      }
      return turn === 0
        ? repl(
            'const secret = 1\nconst r = await rlm_query("Count the words", { context: "a b c" })',
          )
        : 'FINAL_VAR(r)';
    });
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, maxDepth: 2, onEvent }).completion('the root context');
    expect(result).toMatchObject({ status: 'completed', answer: '3:undefined' });
    const childStart = events.find((event) => event.type === 'run-start' && event.depth === 1);
    expect(childStart).toMatchObject({ parentRunId: result.runId, runId: `${result.runId}.1` });
    expect(events.filter((event) => event.type === 'block-end' && event.depth === 1)).toHaveLength(
      1,
    );
    expect(totalUsage(result.usage).calls).toBe(4);
  });

  it('makes a specialist child when systemPrompt is passed', async () => {
    const model = scriptedModel((request) => {
      if (request.system?.startsWith('You are a meticulous lawyer.'))
        return repl('FINAL("clause 7")');
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0
        ? repl(
            'const r = await rlm_query("Find the clause", { systemPrompt: "You are a meticulous lawyer." })',
          )
        : 'FINAL_VAR(r)';
    });
    const result = await testRLM({ model, maxDepth: 2 }).completion('contract text');
    expect(result.answer).toBe('clause 7');
  });

  it('falls back to a one-shot call with the flat prompt at the depth limit', async () => {
    const model = scriptedModel([
      repl('const r = await rlm_query("Summarise", { context: "long text" })'),
      'FINAL_VAR(r)',
    ]);
    const subModel = scriptedModel(() => 'short', { id: 'scripted/sub' });
    const result = await testRLM({ model, subModel, maxDepth: 1 }).completion('ctx');
    expect(result.answer).toBe('short');
    expect(subModel.requests[0]!.system).toBe(buildFlatPrompt());
    expect(lastMessage(subModel.requests[0]!).content).toBe('Summarise\n\nContext:\nlong text');
  });

  it('gives a child a scalar context as text', async () => {
    const model = scriptedModel((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (request.messages[0]!.content.includes('string of 2 characters')) {
        return turn === 0 ? repl('const t = typeof context + ":" + context') : 'FINAL_VAR(t)';
      }
      return turn === 0
        ? repl('const r = await rlm_query("what is it?", { context: 42 })')
        : 'FINAL_VAR(r)';
    });
    const result = await testRLM({ model, maxDepth: 2 }).completion('root context');
    expect(result.answer).toBe('string:42');
  });

  it('returns an error string to the caller when a child fails, and the parent goes on', async () => {
    const model = scriptedModel((request) => {
      if (request.messages[0]!.content.includes('string of 4 characters'))
        return new Error('child model down');
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0
        ? repl('const r = await rlm_query("task", { context: "abcd" })')
        : 'FINAL_VAR(r)';
    });
    const result = await testRLM({ model, maxDepth: 2 }).completion('ctx');
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^Error: child run .* ended with status error/);
  });
});

describe('host tools and model choice', () => {
  it('exposes configured tools to code and lists them in the system prompt', async () => {
    const model = scriptedModel([repl('const t = await lookup("population", 3)'), 'FINAL_VAR(t)']);
    const lookup = {
      description: 'lookup(key, n) returns the n-th value stored under key.',
      call: async (args: unknown[]) => `${String(args[0])}#${String(args[1])}`,
    };
    const result = await testRLM({ model, tools: { lookup } }).completion('ctx');
    expect(result.answer).toBe('population#3');
    expect(model.requests[0]!.system).toContain('lookup(key, n) returns the n-th value');
  });

  it('leaves the context helpers out of every sandbox and prompt when contextHelpers is false', async () => {
    const probe = 'const kinds = [typeof grep, typeof chunk].join()\nprint(kinds)';
    const model = scriptedModel((request) => {
      if (request.messages.length > 2) return 'FINAL_VAR(kinds)';
      const root = request.system?.includes('rlm_query(') === true;
      return repl(root ? `${probe}\nprint(await rlm_query("look", { context: "x" }))` : probe);
    });
    const result = await testRLM({ model, maxDepth: 2, contextHelpers: false }).completion('ctx');
    expect(result.answer).toBe('undefined,undefined');
    const systems = model.requests.map((request) => request.system);
    expect(new Set(systems).size).toBe(2);
    for (const system of systems) expect(system).not.toMatch(/\b(grep|chunk)\(/);
    const rootTurn2 = model.requests.find(
      (request) => request.system?.includes('rlm_query(') === true && request.messages.length > 2,
    );
    // The root printed its own probe, then the child's answer: both sandboxes lack the helpers.
    expect(rootTurn2!.messages.at(-2)!.content).toContain(
      'undefined,undefined\nundefined,undefined',
    );

    const withHelpers = scriptedModel([repl(probe), 'FINAL_VAR(kinds)']);
    expect((await testRLM({ model: withHelpers }).completion('ctx')).answer).toBe(
      'function,function',
    );
    expect(withHelpers.requests[0]!.system).toMatch(/\bgrep\(/);
  });

  it('routes { model } to a configured model and reports an unknown one as an error string', async () => {
    const code = [
      'const a = await llm_query("q", { model: "scripted/big" })',
      'const b = await llm_query("q", { model: "nope/x" })',
      'print(a + " | " + b)',
    ].join('\n');
    const model = scriptedModel([repl(code), 'FINAL(ok)']);
    const big = scriptedModel(() => 'from big', { id: 'scripted/big' });
    await testRLM({ model, models: [big] }).completion('ctx');
    expect(big.calls).toBe(1);
    const output = model.requests[1]!.messages.at(-2)!.content;
    expect(output).toContain(
      "from big | Error: unknown model 'nope/x'. Available: scripted/model, scripted/big",
    );
  });
});
