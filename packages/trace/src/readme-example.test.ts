import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { traceToHtml } from '../examples/render-trace.js';
import { recordingPath } from './testing/recorded-runs.js';

const readme = new URL('../README.md', import.meta.url);
const example = new URL('../examples/render-trace.ts', import.meta.url);

describe('the README example', () => {
  it('is the example file, word for word', async () => {
    const text = await readFile(readme, 'utf8');
    const block = /<!-- example:render-trace -->\n```ts\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toBe(await readFile(example, 'utf8'));
  });

  it('writes the page of a recorded run when run as written', async () => {
    const out = join(await mkdtemp(join(tmpdir(), 'rlm-trace-example-')), 'run.html');
    const summary = await traceToHtml(recordingPath('nested-run'), out);
    expect(summary).toMatchObject({ status: 'completed', turns: 2 });
    const html = await readFile(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<h1>rlm trace nested-run-root</h1>');
  });
});
