import { describe, expect, it } from 'vitest';
import { parseServerConfig } from './server-config.js';
import { serverRunSettings } from './server-run-settings.js';

const budget = {
  maxIterations: 20,
  maxDepth: 2,
  maxTokens: 1_000,
  maxCostUsd: 1,
  maxWallTimeMs: 60_000,
  maxSubcalls: 10,
};

describe("a profile's taskModel", () => {
  it('becomes dispatch.model in the run settings; absent, tasks use the sub-model', () => {
    const config = parseServerConfig({
      store: { kind: 'memory' },
      dataDir: '/tmp',
      profiles: {
        default: { model: 'testkit:echo' },
        team: {
          model: 'testkit:echo',
          subModel: 'testkit:sub',
          taskModel: 'testkit:tasks',
          mode: 'coordinator',
          maxDepth: 2,
        },
      },
    });
    const team = config.profiles['team'];
    const plain = config.profiles['default'];
    if (team === undefined || plain === undefined) throw new Error('profiles not parsed');
    expect(serverRunSettings(team, budget)).toMatchObject({
      subModel: 'testkit:sub',
      dispatch: { model: 'testkit:tasks' },
    });
    expect(serverRunSettings(plain, budget)).not.toHaveProperty('dispatch');
  });
});

describe("a profile's escalation ladder", () => {
  it('becomes escalate and escalateAfterErrors in the run settings; a ladder of no model is refused', () => {
    const config = parseServerConfig({
      store: { kind: 'memory' },
      dataDir: '/tmp',
      profiles: {
        default: {
          model: 'testkit:echo',
          escalate: ['testkit:mid', 'testkit:strong'],
          escalateAfterErrors: 2,
        },
      },
    });
    const profile = config.profiles['default'];
    if (profile === undefined) throw new Error('profile not parsed');
    expect(serverRunSettings(profile, budget)).toMatchObject({
      escalate: ['testkit:mid', 'testkit:strong'],
      escalateAfterErrors: 2,
    });
    expect(() =>
      parseServerConfig({
        store: { kind: 'memory' },
        dataDir: '/tmp',
        profiles: { default: { model: 'testkit:echo', escalate: [] } },
      }),
    ).toThrow(/escalate/);
  });

  it('gives way to a ladder a caller chose (kept in the run’s metadata), rung by rung', () => {
    const profile = parseServerConfig({
      store: { kind: 'memory' },
      dataDir: '/tmp',
      profiles: { default: { model: 'testkit:echo', escalate: ['testkit:mid'] } },
    }).profiles['default'];
    if (profile === undefined) throw new Error('profile not parsed');
    expect(
      serverRunSettings(profile, budget, {
        escalation: { escalate: ['testkit:strong'], escalateAfterErrors: 4 },
      }),
    ).toMatchObject({ escalate: ['testkit:strong'], escalateAfterErrors: 4 });
    // Only the error count chosen: the profile's ladder with the caller's count.
    expect(
      serverRunSettings(profile, budget, { escalation: { escalateAfterErrors: 1 } }),
    ).toMatchObject({ escalate: ['testkit:mid'], escalateAfterErrors: 1 });
  });
});
