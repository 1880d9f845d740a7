// Run with `node --test scripts/docs-test/readme-blocks.test.mjs` (part of `pnpm test:docs`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findRunnableBlocks, ReadmeBlockError } from './readme-blocks.mjs';

const readme = (...lines) => lines.join('\n');

describe('findRunnableBlocks', () => {
  it('returns marked blocks with their fence line and code, and skips unmarked ones', () => {
    const text = readme(
      '# Title',
      '```sh',
      'not marked',
      '```',
      '<!-- runnable -->',
      '```sh',
      'echo one',
      'echo two',
      '```',
    );
    assert.deepEqual(findRunnableBlocks(text, 'README.md'), [
      { line: 6, language: 'sh', kind: 'shell', code: 'echo one\necho two', options: {} },
    ]);
  });

  it('allows blank lines and other comments between the marker and its block', () => {
    const text = readme(
      '<!-- runnable -->',
      '',
      '<!-- example:basic -->',
      '```ts',
      'let x = 1;',
      '```',
    );
    const [block] = findRunnableBlocks(text, 'README.md');
    assert.equal(block?.kind, 'typescript');
    assert.equal(block?.line, 4);
  });

  it('reads stdout=json, and refuses an unknown option naming the ones it knows', () => {
    const json = readme('<!-- runnable stdout=json -->', '```sh', 'echo {}', '```');
    assert.deepEqual(findRunnableBlocks(json, 'R.md')[0]?.options, { stdout: 'json' });
    const bad = readme('<!-- runnable stdout=yaml -->', '```sh', 'echo', '```');
    assert.throws(() => findRunnableBlocks(bad, 'R.md'), {
      name: 'Error',
      message: /R\.md:1: unknown runnable option "stdout=yaml"; expected stdout=json/,
    });
  });

  it('refuses a marker followed by prose or by nothing, naming its line', () => {
    const prose = readme('', '<!-- runnable -->', 'Some text.', '```sh', 'echo', '```');
    assert.throws(() => findRunnableBlocks(prose, 'R.md'), /R\.md:2: .* right before a code block/);
    assert.throws(
      () => findRunnableBlocks('<!-- runnable -->\n', 'R.md'),
      /R\.md:1: .* no code block/,
    );
  });

  it('refuses a language it cannot run and a block that never ends', () => {
    const toml = readme('<!-- runnable -->', '```toml', 'a = 1', '```');
    assert.throws(() => findRunnableBlocks(toml, 'R.md'), ReadmeBlockError);
    assert.throws(
      () => findRunnableBlocks('```sh\necho\n', 'R.md'),
      /R\.md:1: the code block never ends/,
    );
  });

  it('ignores markers inside code blocks and ends a fence only at one as long as its opening', () => {
    const text = readme(
      '<!-- runnable -->',
      '````ts',
      "const md = '```repl';",
      '<!-- runnable -->',
      '````',
    );
    const blocks = findRunnableBlocks(text, 'R.md');
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0]?.code, "const md = '```repl';\n<!-- runnable -->");
  });
});
