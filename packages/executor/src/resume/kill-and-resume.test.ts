import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStore } from '@rlm/memory';
import { scriptedModel } from '@rlm/testkit';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { replay } from '../index.js';
import { eventLog, testRLM } from '../testing/rlm-test-kit.js';

const fixture = fileURLToPath(new URL('./__fixtures__/crashing-run.mjs', import.meta.url));
const coordinatorFixture = fileURLToPath(
  new URL('./__fixtures__/crashing-coordinator-run.mjs', import.meta.url),
);

/** Runs the fixture until it waits on its third model call, then SIGKILLs it. */
async function runUntilKilled({
  path,
  runId,
  trajectoryDir,
  script = fixture,
}: {
  path: string;
  runId: string;
  trajectoryDir: string;
  script?: string;
}): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [script, path, runId, trajectoryDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('WAITING')) resolve();
    });
    child.on('exit', () =>
      reject(new Error(`the fixture exited early (run pnpm build first?): ${stderr}`)),
    );
  });
  child.kill('SIGKILL');
  return exited;
}

describe('kill and resume', () => {
  it('resumes a SIGKILLed run from its SQLite checkpoint and finishes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-resume-'));
    const path = join(dir, 'runs.db');
    try {
      const trajectoryDir = join(dir, 'trajectories');
      expect(await runUntilKilled({ path, runId: 'killed-run', trajectoryDir })).toBe('SIGKILL');
      const store = await createStore({ kind: 'sqlite', path });
      try {
        expect((await store.runs.getRun('killed-run'))?.status).toBe('running');
        expect((await store.runs.latestCheckpoint('killed-run'))?.turn).toBe(1);
        const model = scriptedModel(() => 'FINAL_VAR(b)');
        const subModel = scriptedModel(() => 'live', { id: 'scripted/sub' });
        const result = await testRLM({
          model,
          subModel,
          runStore: store.runs,
          trajectory: { dir: trajectoryDir },
        }).resume('killed-run', { context: 'the context' });
        expect(result).toMatchObject({ status: 'completed', answer: 'FIRST+SECOND' });
        expect([model.calls, subModel.calls]).toEqual([1, 0]);
        // The resumed turn was sent the two earlier turns exactly once.
        const sent = model.requests[0]!.messages;
        expect(sent.filter((message) => message.role === 'assistant')).toHaveLength(2);
        expect(
          sent.filter((message) => message.content.includes('llm_query("first")')),
        ).toHaveLength(1);
        expect((await store.runs.getRun('killed-run'))?.status).toBe('completed');
        // One trajectory file: each turn exactly once (what the killed turn wrote was cut off).
        const records = await readTrajectory(join(trajectoryDir, 'killed-run.jsonl'));
        expect(records.filter((record) => record.kind === 'header')).toHaveLength(1);
        const turns = records.flatMap((record) =>
          record.kind === 'event' && record.event.type === 'iteration-start'
            ? [record.event.iteration]
            : [],
        );
        expect(turns).toEqual([0, 1, 2]);
        // One run: one start, the resume marked as such (never a second run-start), one end.
        const lifecycle = trajectoryEvents(records).flatMap((event) =>
          ['run-start', 'run-resume', 'run-end'].includes(event.type) ? [event] : [],
        );
        expect(lifecycle.map((event) => event.type)).toEqual([
          'run-start',
          'run-resume',
          'run-end',
        ]);
        expect(lifecycle[1]).toMatchObject({ fromIteration: 2, model: 'scripted/model' });
        // The resumed file replays as one run, straight through.
        const replayed = await replay(records, { context: 'the context', isolation: 'inline' });
        expect(replayed.result).toMatchObject({ status: 'completed', answer: 'FIRST+SECOND' });
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('resumes a SIGKILLed coordinator run without running its finished tasks again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-resume-'));
    const path = join(dir, 'runs.db');
    try {
      const killed = await runUntilKilled({
        path,
        runId: 'killed-coordinator',
        trajectoryDir: join(dir, 'trajectories'),
        script: coordinatorFixture,
      });
      expect(killed).toBe('SIGKILL');
      const store = await createStore({ kind: 'sqlite', path });
      try {
        const model = scriptedModel((request) =>
          request.system?.includes('## Background tasks') === true
            ? "```repl\nFINAL(early + '!')\n```"
            : '```repl\nFINAL("again")\n```',
        );
        const { events, onEvent } = eventLog();
        const result = await testRLM({
          model,
          maxDepth: 2,
          promptMode: 'coordinator',
          runStore: store.runs,
          onEvent,
        }).resume('killed-coordinator', { context: 'the context' });
        expect(result).toMatchObject({ status: 'completed', answer: 'ONE+TWO!' });
        // One root request (the resumed turn), and no task ran again.
        expect(model.calls).toBe(1);
        expect(events.filter((event) => event.type === 'task-start')).toEqual([]);
        expect(
          events.filter((event) => event.type === 'run-end' && event.depth === 0),
        ).toHaveLength(1);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
