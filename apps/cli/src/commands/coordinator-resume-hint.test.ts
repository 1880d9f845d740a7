import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import {
  type FakeModelRequest,
  type FakeOpenAIServer,
  needleHaystack,
  startFakeOpenAI,
} from '@rlm/testkit';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
let server: FakeOpenAIServer;
/** Model requests of background tasks, by task. */
const perTask = new Map<string, number>();

const fence = (code: string) => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;

/**
 * A coordinator: turn 0 delegates two tasks and reads them, turn 1 delegates a third, turn 2
 * answers with all three. A task answers with its context in capitals.
 */
function coordinator(request: FakeModelRequest): string {
  const text = JSON.stringify(request.messages) + (request.system ?? '');
  if (!text.includes('## Background tasks')) {
    const task = /task (\w+)/.exec(text)?.[1] ?? '?';
    perTask.set(task, (perTask.get(task) ?? 0) + 1);
    return fence('FINAL(context.toUpperCase())');
  }
  switch (request.messages.filter((message) => message.role === 'assistant').length) {
    case 0:
      return fence(
        [
          "const first = delegate_batch([{ task: 'task one', context: 'one' }, { task: 'task two', context: 'two' }])",
          "const early = (await await_results(first)).results.map((r) => r.summary).join('+')",
        ].join('\n'),
      );
    case 1:
      return fence(
        "const late = (await await_results([delegate('task three', { context: 'three' })])).results[0].summary",
      );
    default:
      return fence("FINAL(early + '+' + late)");
  }
}

beforeAll(async () => {
  server = await startFakeOpenAI({ flavor: 'vllm', script: coordinator });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  perTask.clear();
});
afterEach(() => sandbox.dispose());

function cli(args: readonly string[]) {
  return runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });
}

describe('the resume hint', () => {
  it('is given for a budget-stopped solver run, which rlm resume can continue', async () => {
    const task = needleHaystack({ chars: 5_000, seed: 8 });
    writeFileSync(join(sandbox.dir, 'context.txt'), task.context);
    const result = await cli([
      'run',
      task.query,
      '-c',
      'context.txt',
      '--model',
      'testkit:needle-finder',
      '--max-subcalls',
      '0',
    ]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('rlm resume');
  });

  it('is given for a budget-stopped coordinator run, and rlm resume finishes it without re-running its finished tasks', async () => {
    writeFileSync(join(sandbox.dir, 'context.txt'), 'the context');
    const model = ['--model', `openai-compatible/coordinator@${server.url}`];
    const stopped = await cli([
      'run',
      'Join the tasks',
      '-c',
      'context.txt',
      ...model,
      '--mode',
      'coordinator',
      '--max-subcalls',
      '2',
      '--json',
    ]);
    expect(stopped.code).toBe(4);
    expect(stopped.stderr).toContain('rlm resume');
    const { runId, trajectoryPath } = rlmChatCompletionSchema.parse(JSON.parse(stopped.stdout));
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1 });

    const resumed = await cli([
      'resume',
      runId,
      '-c',
      'context.txt',
      '--max-subcalls',
      '10',
      '--json',
    ]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      status: 'completed',
      answer: 'ONE+TWO+THREE',
    });
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    // The resumed run goes on in the same trajectory (cut back to its last checkpoint, so the
    // stopped attempt's end is gone) and ends once.
    const events = trajectoryEvents(await readTrajectory(trajectoryPath ?? ''));
    const root = events.filter(
      (event) => event.depth === 0 && ['run-start', 'run-resume', 'run-end'].includes(event.type),
    );
    expect(root.map((event) => event.type)).toEqual(['run-start', 'run-resume', 'run-end']);
  });
});
