import type { RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { renderRunHtml } from './render-run-html.js';
import { renderTraceHtml } from './render-trace-html.js';
import { TraceTree } from './trace-tree.js';

const HOSTILE = `<script>alert("x")</script> & 'quotes'`;

async function record(script: Parameters<typeof scriptedModel>[0]): Promise<RunEvent[]> {
  const { events, onEvent } = eventLog();
  await testRLM({ model: scriptedModel(script), maxDepth: 2, onEvent }).completion(
    'the root context',
  );
  return events;
}

function treeOf(events: readonly RunEvent[]): TraceTree {
  const tree = new TraceTree();
  for (const event of events) tree.apply(event);
  return tree;
}

describe('renderRunHtml', () => {
  it('renders turns, code, output and an rlm_query child nested under its sub-call', async () => {
    const events = await record((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (request.messages[0]?.content.includes('string of 5 characters')) return 'FINAL(child)';
      return turn === 0
        ? repl('const r = await rlm_query("go", { context: "child" })\nprint(r)')
        : 'FINAL_VAR(r)';
    });
    const html = renderRunHtml(treeOf(events));
    expect(html).toMatch(/^<div class="rlm-trace" data-root-run-id="[^"]+">/);
    expect(html).toContain('<pre class="code">const r = await rlm_query(&quot;go&quot;');
    expect(html).toContain('<pre class="stdout">child\n</pre>');
    const call = html.indexOf('<div class="subcall ok" data-kind="rlm">');
    const child = html.indexOf('<section class="run depth-1"');
    expect(call).toBeGreaterThan(0);
    expect(child).toBeGreaterThan(call);
    // two root turns and two child turns (its turn-0 answer without code is refused once)
    const turns = html.match(/<details class="turn[^"]*" data-key="[^"]+" data-turn="\d+" open>/g);
    expect(turns).toHaveLength(4);
    expect(html).toContain('<dt>Status</dt><dd>completed</dd>');
  });

  it('escapes every piece of model and run text', async () => {
    const events = await record((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0 ? repl(`print(${JSON.stringify(HOSTILE)})`) : `FINAL(${HOSTILE})`;
    });
    const html = renderRunHtml(treeOf(events));
    expect(html).not.toContain('<script');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;',
    );
  });

  it('gives the same HTML for the same events, whenever it is rendered', async () => {
    const events = await record(['```repl\nprint(1)\n```', 'FINAL(1)']);
    expect(renderRunHtml(treeOf(events))).toBe(renderRunHtml(treeOf(structuredClone(events))));
  });

  it('marks what is still running in a tree cut mid-run', async () => {
    const events = await record(['```repl\nprint(1)\n```', 'FINAL(1)']);
    const cut = events.findIndex((event) => event.type === 'block-start');
    const html = renderRunHtml(treeOf(events.slice(0, cut + 1)));
    expect(html).toContain('<div class="block running" data-block="0">');
    expect(html).toContain('<pre class="empty">(running…)</pre>');
    expect(html).toContain('<dt>Status</dt><dd>not finished</dd>');
    expect(html).not.toContain('class="answer"');
  });

  it('says so when there are no events yet', () => {
    expect(renderRunHtml(new TraceTree())).toContain('No run events yet.');
  });
});

describe('renderTraceHtml', () => {
  it('wraps the fragment in one self-contained document with the style sheet inline', async () => {
    const tree = treeOf(await record(['FINAL(1)']));
    const html = renderTraceHtml(tree, { title: `Run <${tree.rootRunId}>` });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(renderRunHtml(tree));
    expect(html).toContain(`<title>Run &lt;${tree.rootRunId}&gt;</title>`);
    expect(html).toContain('.rlm-trace section.run{');
    expect(html).not.toMatch(/<script|<link|\bsrc=|https?:\/\//);
  });
});
