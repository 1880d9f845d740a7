import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRLM } from '@rlm/executor';
import { scriptedModel } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

/** Distinct lines, so a printed slice is found only where it was cut. */
const context = Array.from(
  { length: 400 },
  (_, line) => `line ${line}: the ${line * 7919} th word`,
).join('\n');

async function recordRun(): Promise<string> {
  writeFileSync(join(sandbox.dir, 'notes.txt'), context);
  const model = scriptedModel(['```repl\nprint(context.slice(1000, 4000))\n```', 'FINAL(printed)']);
  const rlm = createRLM({ model, trajectory: { dir: sandbox.dir }, generateId: () => 'sliced' });
  const result = await rlm.completion(context);
  expect(readFileSync(result.trajectoryPath!, 'utf8')).not.toContain(context.slice(1000, 4000));
  return result.trajectoryPath!;
}

describe('rlm trace of a trajectory that refers to its context', () => {
  it('shows the slices in full with --context, and a note naming the context without it', async () => {
    const path = await recordRun();
    const cli = (args: string[]) => runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

    expect((await cli(['trace', path, '--context', 'notes.txt', '--html', 'full.html'])).code).toBe(
      0,
    );
    const full = readFileSync(join(sandbox.dir, 'full.html'), 'utf8');
    expect(full).toContain(context.slice(1000, 4000).split('\n').slice(1, -1).join('\n'));

    expect((await cli(['trace', path, '--html', 'bare.html'])).code).toBe(0);
    const bare = readFileSync(join(sandbox.dir, 'bare.html'), 'utf8');
    expect(bare).toMatch(
      /\[\d+ chars of context \(\d+ chars, sha256:[0-9a-f]{16}\) from offset \d+: that context was not given\]/,
    );
    expect(bare).not.toContain(context.slice(2000, 2100));

    writeFileSync(join(sandbox.dir, 'other.txt'), context.replace('line 3:', 'line 3;'));
    const wrong = await cli(['trace', path, '--context', 'other.txt']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /refers to context \(\d+ chars, sha256:[0-9a-f]{16}\), given, but it is a different one/,
    );
  });
});
