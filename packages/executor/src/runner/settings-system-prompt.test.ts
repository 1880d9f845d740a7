import type { RunSettingsInput } from '@rlm/protocol';
import { closePythonPool } from '@rlm/sandbox-python';
import { scriptedModel } from '@rlm/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from './create-runner.js';
import { settingsSystemPrompt } from './settings-system-prompt.js';

afterAll(() => closePythonPool());

/** The system prompt of the first request a run with these settings sends (then it is stopped). */
async function firstSystemPrompt(settings: RunSettingsInput): Promise<string | undefined> {
  const stop = new AbortController();
  const model = scriptedModel(
    () => {
      stop.abort();
      return new Promise<string>(() => undefined);
    },
    { id: 'm' },
  );
  const other = scriptedModel(() => 'unused', { id: 'scripted/other' });
  await createRunner({
    resolveModel: (id) => (id === 'm' ? model : { ...other, id }),
    isolation: 'inline',
  }).run(settings, { context: 'ctx', query: 'q', signal: stop.signal });
  return model.requests[0]?.system;
}

const cases: [string, RunSettingsInput][] = [
  ['solver, JavaScript', { model: 'm' }],
  [
    'coordinator, JavaScript, with a sub-model, a task model, a driver and a typed answer',
    {
      model: 'm',
      subModel: 'sub',
      dispatch: { model: 'tasks' },
      mode: 'coordinator',
      drivers: ['verify-before-final'],
      limits: { maxDepth: 3, maxIterations: 7 },
      outputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    },
  ],
  ['solver, Python', { model: 'm', repl: 'python', limits: { maxDepth: 2 } }],
  [
    'coordinator, Python, without host tools',
    { model: 'm', repl: 'python', mode: 'coordinator', tools: false, limits: { maxDepth: 2 } },
  ],
];

describe('settingsSystemPrompt', { timeout: 180_000 }, () => {
  it.each(cases)('is the system prompt a run sends: %s', async (_name, settings) => {
    const sent = await firstSystemPrompt(settings);
    expect(sent).toBeDefined();
    expect(settingsSystemPrompt(settings).text).toBe(sent);
  });

  it('builds a child prompt for a depth below maxDepth, and refuses one beyond', () => {
    const child = settingsSystemPrompt(
      { model: 'm', mode: 'coordinator', limits: { maxDepth: 2 } },
      { depth: 1 },
    );
    expect(child.options).toMatchObject({ depth: 1, mode: 'solver' });
    expect(child.text).not.toContain('## Background tasks');
    expect(() => settingsSystemPrompt({ model: 'm' }, { depth: 1 })).toThrow(/depth 0 to 0/);
  });
});
