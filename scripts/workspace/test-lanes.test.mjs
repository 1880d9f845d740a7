import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInLanes, testOrder } from './test-lanes.mjs';

let root;

function aPackage(dir, name, { testFiles, withTest = true }) {
  mkdirSync(join(root, dir, 'src', 'nested'), { recursive: true });
  writeFileSync(
    join(root, dir, 'package.json'),
    JSON.stringify({ name, scripts: withTest ? { test: 'vitest run' } : {} }),
  );
  for (let index = 0; index < testFiles; index += 1) {
    const folder = index % 2 === 0 ? 'src' : join('src', 'nested');
    writeFileSync(join(root, dir, folder, `case-${index}.test.ts`), '');
    writeFileSync(join(root, dir, folder, `case-${index}.ts`), '');
  }
}

describe('the test lanes of workspace.mjs', () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'rlm-test-lanes-'));
    aPackage('packages/protocol', '@rlm/protocol', { testFiles: 3 });
    aPackage('packages/sandbox', '@rlm/sandbox', { testFiles: 5 });
    aPackage('apps/server', '@rlm/server', { testFiles: 9 });
    aPackage('apps/cli', '@rlm/cli', { testFiles: 5 });
    aPackage('packages/untested', '@rlm/untested', { testFiles: 2, withTest: false });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('orders the packages with a test script by their number of test files, most first', () => {
    assert.deepEqual(
      testOrder(root).map(({ name, testFiles }) => [name, testFiles]),
      [
        ['@rlm/server', 9],
        ['@rlm/cli', 5],
        ['@rlm/sandbox', 5],
        ['@rlm/protocol', 3],
      ],
    );
  });

  it('starts a suite as soon as a lane is free, never more at once than there are lanes', async () => {
    const started = [];
    const finish = new Map();
    let running = 0;
    let most = 0;
    const suites = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const done = runInLanes(suites, 2, (suite) => {
      started.push(suite.name);
      running += 1;
      most = Math.max(most, running);
      return new Promise((resolve) =>
        finish.set(suite.name, () => {
          running -= 1;
          resolve(0);
        }),
      );
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    assert.deepEqual(started, ['a', 'b']);
    finish.get('b')();
    await settle();
    assert.deepEqual(started, ['a', 'b', 'c'], 'the lane b left takes the next suite');
    finish.get('a')();
    await settle();
    finish.get('c')();
    finish.get('d')();
    assert.deepEqual(await done, []);
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    assert.equal(most, 2);
  });

  it('starts no suite after one fails, lets the running ones end, and names the failures', async () => {
    const started = [];
    const suites = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const failed = await runInLanes(suites, 2, async (suite) => {
      started.push(suite.name);
      return suite.name === 'a' ? 1 : 0;
    });
    assert.deepEqual(failed, ['a']);
    assert.deepEqual(started, ['a', 'b']);
  });
});
