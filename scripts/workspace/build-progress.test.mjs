import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildProgress } from './build-progress.mjs';

let root;

function aPackage(dir, name) {
  mkdirSync(join(root, dir, 'dist'), { recursive: true });
  writeFileSync(
    join(root, dir, 'package.json'),
    JSON.stringify({ name, scripts: { build: 'tsc -b' } }),
  );
}

function finish(dir, at, marker = '.tsbuildinfo') {
  const file = join(root, dir, 'dist', marker);
  writeFileSync(file, '{}');
  utimesSync(file, at / 1000, at / 1000);
}

describe('the build progress of workspace.mjs', () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'rlm-build-progress-'));
    aPackage('packages/protocol', '@rlm/protocol');
    aPackage('apps/cli', '@rlm/cli');
    mkdirSync(join(root, 'packages/notes'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('names each package once, as it finishes, with a count and the time since the start', () => {
    const startedAt = 1_000_000_000_000;
    let clock = startedAt;
    finish('packages/protocol', startedAt - 60_000);
    finish('apps/cli', startedAt - 60_000);
    const poll = buildProgress(root, { startedAt, now: () => clock });
    assert.deepEqual(poll(), [], 'outputs older than the step are an earlier build');
    clock = startedAt + 41_000;
    finish('packages/protocol', clock);
    assert.deepEqual(poll(), ['1/2: @rlm/protocol 41.0s']);
    assert.deepEqual(poll(), []);
    clock = startedAt + 75_000;
    finish('apps/cli', clock);
    assert.deepEqual(poll(), ['2/2: @rlm/cli 1m15s']);
  });

  it('counts a bundled app built only once its bundle is written, after tsc', () => {
    mkdirSync(join(root, 'apps/server/dist'), { recursive: true });
    writeFileSync(
      join(root, 'apps/server/package.json'),
      JSON.stringify({
        name: '@rlm/server',
        scripts: { build: 'tsc -b && bundle' },
        bundle: { entries: {} },
      }),
    );
    const startedAt = 2_000_000_000_000;
    let clock = startedAt;
    const poll = buildProgress(root, { startedAt, now: () => clock });
    clock = startedAt + 30_000;
    finish('packages/protocol', clock);
    finish('apps/cli', clock);
    finish('apps/server', clock);
    assert.deepEqual(poll(), ['1/3: @rlm/cli 30.0s', '2/3: @rlm/protocol 30.0s']);
    clock = startedAt + 34_000;
    finish('apps/server', clock, '.bundle-info.json');
    assert.deepEqual(poll(), ['3/3: @rlm/server 34.0s']);
  });
});
