import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtDependencies, runInLanes, testOrder } from './test-lanes.mjs';

const settle = () => new Promise((resolve) => setImmediate(resolve));

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

  it('orders the packages with a test script by their measured length, longest first', () => {
    assert.deepEqual(
      testOrder(root).map(({ name, testFiles }) => [name, testFiles]),
      [
        ['@rlm/server', 9],
        ['@rlm/sandbox', 5],
        ['@rlm/cli', 5],
        ['@rlm/protocol', 3],
      ],
    );
  });

  it('places a package without a measured length by its number of test files', () => {
    aPackage('packages/newcomer', '@rlm/newcomer', { testFiles: 40 });
    try {
      assert.deepEqual(
        testOrder(root).map(({ name }) => name),
        ['@rlm/server', '@rlm/sandbox', '@rlm/newcomer', '@rlm/cli', '@rlm/protocol'],
      );
    } finally {
      rmSync(join(root, 'packages/newcomer'), { recursive: true, force: true });
    }
  });

  it('starts a suite as soon as a lane is free, never more at once than there are lanes', async () => {
    const started = [];
    const finish = new Map();
    let running = 0;
    let most = 0;
    const suites = ['a', 'b', 'c', 'd'].map((name) => ({ name }));
    const start = (suite) => {
      started.push(suite.name);
      running += 1;
      most = Math.max(most, running);
      return new Promise((resolve) =>
        finish.set(suite.name, () => {
          running -= 1;
          resolve(0);
        }),
      );
    };
    const done = runInLanes(suites, { lanes: 2, start });
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
    const failed = await runInLanes(suites, {
      lanes: 2,
      start: async (suite) => {
        started.push(suite.name);
        return suite.name === 'a' ? 1 : 0;
      },
    });
    assert.deepEqual(failed, ['a']);
    assert.deepEqual(started, ['a', 'b']);
  });

  it('runs one lane fewer, of suites that load no native addon, while the addons build', async () => {
    const started = [];
    const finish = new Map();
    let nativeBuilt;
    const nativeReady = new Promise((resolve) => {
      nativeBuilt = resolve;
    });
    const suites = [
      { name: 'server', needsNative: true },
      { name: 'sandbox', needsNative: false },
      { name: 'cli', needsNative: true },
      { name: 'protocol', needsNative: false },
    ];
    const start = (suite) => {
      started.push(suite.name);
      return new Promise((resolve) => finish.set(suite.name, () => resolve(0)));
    };
    const done = runInLanes(suites, { lanes: 2, start, nativeReady });
    await settle();
    assert.deepEqual(started, ['sandbox'], 'the compile keeps the other core busy');
    finish.get('sandbox')();
    await settle();
    assert.deepEqual(started, ['sandbox', 'protocol'], 'no suite that needs the addons yet');
    nativeBuilt(0);
    await settle();
    assert.deepEqual(started, ['sandbox', 'protocol', 'server'], 'the longest left, once built');
    finish.get('protocol')();
    await settle();
    assert.deepEqual(started, ['sandbox', 'protocol', 'server', 'cli']);
    finish.get('server')();
    finish.get('cli')();
    assert.deepEqual(await done, []);
  });

  it('fails as native-addons, starting no suite that needs them, when the addons fail to build', async () => {
    const started = [];
    const suites = [
      { name: 'server', needsNative: true },
      { name: 'sandbox', needsNative: false },
    ];
    const failed = await runInLanes(suites, {
      lanes: 2,
      start: async (suite) => {
        started.push(suite.name);
        return 0;
      },
      nativeReady: Promise.resolve(1),
    });
    assert.deepEqual(failed, ['native-addons']);
    assert.deepEqual(started, ['sandbox']);
  });

  it('marks the packages that depend on a native addon, directly or through another package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-native-lanes-'));
    try {
      const manifest = (path, body) => {
        mkdirSync(join(dir, path), { recursive: true });
        writeFileSync(join(dir, path, 'package.json'), JSON.stringify(body));
      };
      manifest('packages/memory', {
        name: '@x/memory',
        scripts: { test: 't' },
        dependencies: { 'better-sqlite3': '^12' },
      });
      manifest('packages/executor', {
        name: '@x/executor',
        scripts: { test: 't' },
        devDependencies: { '@x/memory': 'workspace:^' },
      });
      manifest('packages/protocol', { name: '@x/protocol', scripts: { test: 't' } });
      writeFileSync(
        join(dir, 'pnpm-workspace.yaml'),
        "packages:\n  - packages/*\n\nonlyBuiltDependencies:\n  - better-sqlite3\n  - 'esbuild'\n\nloglevel: info\n",
      );
      assert.deepEqual(builtDependencies(dir), ['better-sqlite3', 'esbuild']);
      const marks = Object.fromEntries(
        testOrder(dir, builtDependencies(dir)).map((suite) => [suite.name, suite.needsNative]),
      );
      assert.deepEqual(marks, {
        '@x/executor': true,
        '@x/memory': true,
        '@x/protocol': false,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
