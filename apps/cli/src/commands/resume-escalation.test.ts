import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import { type FakeModelRequest, type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
let server: FakeOpenAIServer;
/** Model requests by model name. */
const asked = new Map<string, number>();

const fence = (code: string) => `Next step:\n\`\`\`repl\n${code}\n\`\`\``;

/**
 * Three models behind one fake server: the root looks first, then hands the task to a child on
 * the cheap model; the cheap model's code always fails; the strong one answers.
 */
function models(request: FakeModelRequest): string {
  asked.set(request.model, (asked.get(request.model) ?? 0) + 1);
  if (request.model === 'cheap') return fence('throw new Error("stuck")');
  if (request.model === 'strong') return fence('FINAL("42")');
  const turns = request.messages.filter((message) => message.role === 'assistant').length;
  return turns === 0
    ? fence('print(context.length)')
    : fence(
        'const r = await rlm_query("solve it", { model: "openai-compatible/cheap" });\nFINAL(r)',
      );
}

beforeAll(async () => {
  server = await startFakeOpenAI({ flavor: 'vllm', script: models });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  asked.clear();
});
afterEach(() => sandbox.dispose());

function cli(args: readonly string[]) {
  return runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });
}

describe('rlm resume and the escalation ladder', () => {
  it('keeps the run’s --escalate and --escalate-after-errors: the resumed run’s child escalates', async () => {
    writeFileSync(join(sandbox.dir, 'context.txt'), 'the context');
    // The second turn's rlm_query is refused by --max-subcalls 0: the run stops after one turn.
    const stopped = await cli([
      'run',
      'Solve it',
      '-c',
      'context.txt',
      '--model',
      `openai-compatible/root@${server.url}`,
      '--sub-model',
      `openai-compatible/cheap@${server.url}`,
      '--escalate',
      `openai-compatible/strong@${server.url}`,
      '--escalate-after-errors',
      '2',
      '--max-depth',
      '2',
      '--max-subcalls',
      '0',
      '--json',
    ]);
    expect(stopped.code).toBe(4);
    const { runId, trajectoryPath } = rlmChatCompletionSchema.parse(JSON.parse(stopped.stdout));
    expect(asked.get('cheap')).toBeUndefined();

    // No ladder flags here: the run's own come from its record.
    const resumed = await cli([
      'resume',
      runId,
      '-c',
      'context.txt',
      '--max-subcalls',
      '5',
      '--json',
    ]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', answer: '42' });
    // Two failed turns on the cheap model (its --escalate-after-errors), then the strong one.
    expect(asked.get('cheap')).toBe(2);
    expect(asked.get('strong')).toBeGreaterThan(0);
    const events = trajectoryEvents(await readTrajectory(trajectoryPath ?? ''));
    expect(events.filter((event) => event.type === 'escalation')).toMatchObject([
      {
        fromModel: 'openai-compatible/cheap',
        toModel: 'openai-compatible/strong',
        reason: 'errors',
        consecutiveErrors: 2,
      },
    ]);
  });
});
