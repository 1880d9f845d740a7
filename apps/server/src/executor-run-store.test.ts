import { describe, expect, it } from 'vitest';
import { executorRunStore } from './executor-run-store.js';
import { openServerStore } from './open-server-store.js';

describe('executorRunStore', () => {
  it('saves and reports checkpoints but leaves run status and usage to the server', async () => {
    const store = await openServerStore({ kind: 'memory' });
    await store.runs.createRun({ id: 'run_1', status: 'running', owner: 'key_1' });
    const turns: number[] = [];
    const view = executorRunStore(store.runs, { onCheckpoint: (turn) => turns.push(turn) });
    await view.saveCheckpoint('run_1', 0, { state: 'after turn 0' });
    expect(turns).toEqual([0]);
    expect((await store.runs.latestCheckpoint('run_1'))?.data).toEqual({ state: 'after turn 0' });
    const usage = {
      models: {
        'fake/m': {
          calls: 1,
          inputTokens: 1,
          outputTokens: 1,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0,
        },
      },
    };
    expect(await view.updateRun('run_1', { status: 'cancelled', usage })).toMatchObject({
      status: 'running',
      usage: { models: {} },
    });
    expect(await store.runs.getRun('run_1')).toMatchObject({ status: 'running', endedAt: null });
    await expect(view.updateRun('missing', { status: 'completed' })).rejects.toThrow(
      expect.objectContaining({ code: 'memory.not_found' }),
    );
    await store.close();
  });
});
