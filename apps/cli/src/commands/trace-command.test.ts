import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  readTrajectory,
  recordedExchanges,
  renderRunHtml,
  TraceTree,
  trajectoryEvents,
} from '@rlm/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const NESTED = fileURLToPath(new URL('../__fixtures__/nested-run.jsonl', import.meta.url));

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('rlm trace', () => {
  it('says which response lines each block was written on, when the trajectory records them', async () => {
    const records = (await readTrajectory(NESTED)).map((record) =>
      record.kind === 'event' &&
      record.event.type === 'block-start' &&
      record.event.depth === 0 &&
      record.event.iteration === 0 &&
      record.event.index === 0
        ? { ...record, event: { ...record.event, startLine: 3, endLine: 4 } }
        : record,
    );
    const file = join(sandbox.dir, 'with-lines.jsonl');
    writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const result = await runCliInProcess(['trace', file], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ block 1 (lines 3–4)  const hits = grep(context,');
    expect(result.stdout).toContain('✗ block 2  undefinedFn()');
  });

  it('prints the run tree with turns, blocks, sub-calls and the nested child run', async () => {
    const result = await runCliInProcess(['trace', NESTED], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toContain('2 turns');
    expect(lines[0]).toContain('completed');
    expect(result.stdout).toContain('✓ block 1  const hits = grep(context,');
    expect(result.stdout).toContain(
      '✗ block 2  undefinedFn()  ReferenceError: undefinedFn is not defined',
    );
    expect(result.stdout).toMatch(
      /↳ rlm_query depth 1 scripted\/model ✓ "Check the hits" → line 42/,
    );
    // the child's turn is indented under the sub-call that started it
    const child = lines.findIndex((line) => line.includes("FINAL('line 42')"));
    const call = lines.findIndex((line) => line.includes('↳ rlm_query'));
    expect(child).toBeGreaterThan(call);
    expect(lines[child]?.search(/\S/)).toBeGreaterThan(lines[call]?.search(/\S/) ?? 0);
    expect(result.stdout).toContain('✓ answer (text) The needle is on line 42 <b>');
  });

  it('writes one self-contained HTML page with code, output and sub-calls', async () => {
    const out = join(sandbox.dir, 'run.html');
    const result = await runCliInProcess(['trace', NESTED, '--html', 'run.html'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`wrote ${out}\n`);
    const html = readFileSync(out, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    // self-contained: the viewer's script and data are inline, nothing loads from anywhere
    expect(html).not.toMatch(/<link|\bsrc=|https?:\/\//);
    expect(html).toContain('const hits = grep(context, &#39;needle&#39;);');
    expect(html).toContain('<pre class="stdout">3\n</pre>');
    expect(html).toContain('ReferenceError: undefinedFn is not defined');
    expect(html).toContain('<h2>Run run-child');
    expect(html).toContain('The needle is on line 42 &lt;b&gt;');
  });

  it('writes the shared trace view, the one the server serves, with the recorded exchanges', async () => {
    await runCliInProcess(['trace', NESTED, '--html', 'run.html'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    const tree = new TraceTree();
    const records = await readTrajectory(NESTED);
    for (const event of trajectoryEvents(records)) tree.apply(event);
    const html = readFileSync(join(sandbox.dir, 'run.html'), 'utf8');
    const view = renderRunHtml(tree, { exchanges: recordedExchanges(records) });
    expect(html).toContain(`<body>\n<h1>rlm trace run-root</h1>\n${view}<script>`);
  });

  it('reads a trajectory whose last line a crash cut short as the executor does: up to the cut', async () => {
    const text = readFileSync(NESTED, 'utf8');
    const lastLine = text.trimEnd().lastIndexOf('\n') + 1;
    const cut = join(sandbox.dir, 'cut.jsonl');
    writeFileSync(cut, text.slice(0, lastLine + 40));
    const printed = await runCliInProcess(['trace', 'cut.jsonl'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(printed.code).toBe(0);
    const written = await runCliInProcess(['trace', 'cut.jsonl', '--html', 'cut.html'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(written.code).toBe(0);
    // What the executor's reader (replay, export) gets from the same file: every line but the cut one.
    const records = await readTrajectory(cut);
    expect(records).toHaveLength(text.trim().split('\n').length - 1);
    const tree = new TraceTree();
    for (const event of trajectoryEvents(records)) tree.apply(event);
    const html = readFileSync(join(sandbox.dir, 'cut.html'), 'utf8');
    expect(html).toContain(
      `\n${renderRunHtml(tree, { exchanges: recordedExchanges(records) })}<script>`,
    );
    // The cut line was the run's end: the view says the run did not finish.
    expect(html).toContain('data-field="status">not finished</dd>');
  });

  it('explains a file that is not a trajectory, naming the line', async () => {
    const result = await runCliInProcess(['trace', 'package.json'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: sandbox.env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rlm: Trajectory .*package\.json line 1 is not/);
  });

  it('explains a directory given instead of a trajectory, and what to pass', async () => {
    const result = await runCliInProcess(['trace', '.'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `rlm: ${sandbox.dir} is a directory, not a trajectory; pass one of its .jsonl files (${join(sandbox.dir, '<run id>.jsonl')}) or a run id.\n`,
    );
  });

  it('explains a missing trajectory', async () => {
    const result = await runCliInProcess(['trace', 'nope.jsonl'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `rlm: No trajectory at ${join(sandbox.dir, 'nope.jsonl')}; pass the .jsonl path printed by rlm run (or a run id).\n`,
    );
  });
});
