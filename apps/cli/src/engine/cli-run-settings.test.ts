import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/resolve-config.js';
import { cliRunSettings } from './cli-run-settings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function settingsOf(flags: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-settings-'));
  dirs.push(dir);
  const { config } = resolveConfig({
    cwd: dir,
    env,
    paths: { config: join(dir, 'config'), data: join(dir, 'data') },
    flags,
  });
  return cliRunSettings(config);
}

describe('--task-model', () => {
  it('becomes dispatch.model in the run settings, from the flag or RLM_TASK_MODEL', () => {
    expect(
      settingsOf({ model: 'testkit:echo', mode: 'coordinator', taskModel: 'testkit:tasks' }),
    ).toMatchObject({ dispatch: { model: 'testkit:tasks' } });
    expect(
      settingsOf({ model: 'testkit:echo' }, { RLM_TASK_MODEL: 'testkit:from-env' }),
    ).toMatchObject({ dispatch: { model: 'testkit:from-env' } });
    expect(settingsOf({ model: 'testkit:echo' })).not.toHaveProperty('dispatch');
  });
});

describe('--escalate', () => {
  it('becomes the escalation ladder of the run settings, from repeated flags or RLM_ESCALATE', () => {
    expect(
      settingsOf({
        model: 'testkit:echo',
        escalate: ['testkit:mid', 'testkit:strong'],
        escalateAfterErrors: 2,
      }),
    ).toMatchObject({ escalate: ['testkit:mid', 'testkit:strong'], escalateAfterErrors: 2 });
    expect(
      settingsOf({ model: 'testkit:echo' }, { RLM_ESCALATE: 'testkit:mid, testkit:strong' }),
    ).toMatchObject({ escalate: ['testkit:mid', 'testkit:strong'] });
    expect(settingsOf({ model: 'testkit:echo' })).not.toHaveProperty('escalate');
  });
});
