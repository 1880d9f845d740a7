import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { inputFingerprint, setupIsCurrent, writeSetupStamp } from './setup-stamp.mjs';

const PM = 'pnpm@10.34.9';
let root;

function write(path, text) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A built workspace as a finished set-up leaves it, stamped. */
function stampedWorkspace() {
  write('package.json', '{}');
  write('pnpm-lock.yaml', 'lockfileVersion: 9');
  write('node_modules/.pnpm/lock.yaml', 'lockfileVersion: 9');
  write('packages/a/src/index.ts', 'export const a = 1;');
  write('packages/a/dist/index.js', 'export const a = 1;');
  write('apps/b/src/bin.ts', 'console.log(1);');
  write('apps/b/dist/bin.js', 'console.log(1);');
  const inputs = inputFingerprint(root, PM);
  assert.equal(writeSetupStamp(root, PM, inputs), true);
}

const current = () => setupIsCurrent(root, inputFingerprint(root, PM));

describe('the set-up stamp of workspace.mjs', () => {
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'rlm-stamp-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lets an unchanged workspace skip set-up', () => {
    stampedWorkspace();
    assert.equal(current(), true);
  });

  it('runs set-up again when a source changes, even to the same size', () => {
    stampedWorkspace();
    write('packages/a/src/index.ts', 'export const a = 2;');
    utimesSync(join(root, 'packages/a/src/index.ts'), new Date(), new Date(Date.now() + 5_000));
    assert.equal(current(), false);
  });

  it('runs set-up again when a source file is added', () => {
    stampedWorkspace();
    write('apps/b/src/extra.ts', '');
    assert.equal(current(), false);
  });

  it('runs set-up again when the lockfile or the installed tree changes', () => {
    stampedWorkspace();
    write('pnpm-lock.yaml', 'lockfileVersion: 9\n# changed');
    assert.equal(current(), false);
    stampedWorkspace();
    write('node_modules/.pnpm/lock.yaml', 'lockfileVersion: 9\n# another tree');
    assert.equal(current(), false);
  });

  it('runs set-up again when a build output is missing or was changed', () => {
    stampedWorkspace();
    rmSync(join(root, 'apps/b/dist'), { recursive: true });
    assert.equal(current(), false);
    stampedWorkspace();
    write('packages/a/dist/index.js', 'export const a = 10;');
    assert.equal(current(), false);
  });

  it('ignores what the build itself writes into src (generated scripts)', () => {
    stampedWorkspace();
    write('packages/a/src/page.generated.ts', 'export const page = "";');
    assert.equal(current(), true);
  });

  it('writes no stamp when a source changed while set-up ran', () => {
    stampedWorkspace();
    const before = inputFingerprint(root, PM);
    write('packages/a/src/late.ts', 'edited during the build');
    assert.equal(writeSetupStamp(root, PM, before), false);
  });

  it('has no stamp on a fresh clone', () => {
    write('package.json', '{}');
    assert.equal(current(), false);
  });
});
