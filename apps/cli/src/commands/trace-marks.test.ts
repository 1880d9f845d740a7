import { join } from 'node:path';
import { createRunner } from '@rlm/executor';
import type { ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/**
 * A recorded run whose root asks the same `llm_query` twice (the second is a cache hit) and then
 * hands the task to a child that is stuck on errors and escalates to a stronger model.
 */
async function recordMarkedRun(dir: string): Promise<string> {
  const cheap = scriptedModel(
    (request: ModelRequest) => {
      if (request.system === undefined) return 'chunk summary';
      if (request.system.includes('WORKER')) return repl('throw new Error("stuck")');
      return repl(
        'await llm_query("summarise the chunk")\nawait llm_query("summarise the chunk")\nFINAL(await rlm_query("solve", { systemPrompt: "WORKER" }))',
      );
    },
    { id: 'scripted/cheap' },
  );
  const strong = scriptedModel([repl('FINAL("42")')], { id: 'scripted/strong' });
  const models: Record<string, typeof cheap> = { cheap, strong };
  const runner = createRunner({
    resolveModel: (id) => {
      const model = models[id];
      if (model === undefined) throw new Error(`no model ${id} in this test`);
      return model;
    },
    trajectory: { dir },
    isolation: 'inline',
  });
  const result = await runner.run(
    {
      model: 'cheap',
      escalate: ['strong'],
      limits: { maxDepth: 2 },
      cache: { store: 'memory' },
    },
    { runId: 'marked', context: 'x' },
  );
  expect(result.answer).toBe('42');
  return join(dir, 'marked.jsonl');
}

describe('rlm trace marks', () => {
  it('shows the cache hit with the run that paid for it, where and why a child escalated, and counts both', async () => {
    const file = await recordMarkedRun(sandbox.dir);
    const result = await runCliInProcess(['trace', file], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(0);
    const [header] = result.stdout.split('\n');
    expect(header).toContain('1 cache hit (saved $');
    expect(header).toContain('1 escalation');
    expect(result.stdout).toContain('⚡ cache hit (paid by run marked;');
    expect(result.stdout).toContain(
      '⇧ escalated to scripted/strong: its code failed 3 turns in a row',
    );
    expect(result.stdout).toMatch(
      /⇧ escalation from scripted\/cheap \(run marked\.\d+: its code failed 3 turns in a row\)/,
    );
  });

  it('marks them on the trace page too', async () => {
    const file = await recordMarkedRun(sandbox.dir);
    const page = join(sandbox.dir, 'trace.html');
    const result = await runCliInProcess(['trace', file, '--html', page], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    const { readFileSync } = await import('node:fs');
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('<span class="mark cache-hit">cache hit (paid by run marked;');
    expect(html).toContain(
      '<span class="mark escalation">escalated to scripted/strong: its code failed 3 turns in a row</span>',
    );
    expect(html).toContain('data-field="escalations">1</dd>');
  });
});
