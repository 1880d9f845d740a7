import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildPlans } from './build-all.mjs';

let root;

function aPackage(dir, manifest) {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'package.json'), JSON.stringify(manifest));
}

describe('the one-process build of every package', () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'rlm-build-all-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('runs what comes before each package`s tsc -b first and what comes after it last', () => {
    aPackage('packages/protocol', {
      name: '@rlm/protocol',
      scripts: { build: 'tsc -b tsconfig.build.json' },
    });
    aPackage('packages/sandbox', {
      name: '@rlm/sandbox',
      scripts: {
        build: 'node ../../scripts/embed-script.mjs embed.json && tsc -b tsconfig.build.json',
      },
    });
    aPackage('apps/cli', {
      name: '@rlm/cli',
      scripts: {
        build: 'tsc -b tsconfig.build.json && node ../../scripts/workspace/bundle-app.mjs',
      },
    });
    aPackage('packages/notes', { name: 'notes', scripts: {} });
    assert.deepEqual(buildPlans(root), [
      {
        dir: 'apps/cli',
        name: '@rlm/cli',
        pre: [],
        post: ['node ../../scripts/workspace/bundle-app.mjs'],
      },
      { dir: 'packages/protocol', name: '@rlm/protocol', pre: [], post: [] },
      {
        dir: 'packages/sandbox',
        name: '@rlm/sandbox',
        pre: ['node ../../scripts/embed-script.mjs embed.json'],
        post: [],
      },
    ]);
  });

  it('refuses a build script without its tsc -b step, naming the package', () => {
    aPackage('packages/odd', { name: '@rlm/odd', scripts: { build: 'rollup -c' } });
    assert.throws(
      () => buildPlans(root),
      /@rlm\/odd: its build script must run `tsc -b tsconfig.build.json`/,
    );
    rmSync(join(root, 'packages/odd'), { recursive: true });
  });
});
