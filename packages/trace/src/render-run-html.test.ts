import { describe, expect, it } from 'vitest';
import { renderRunHtml } from './render-run-html.js';
import { renderTraceHtml } from './render-trace-html.js';
import { recordedEvents, treeOf } from './testing/recorded-runs.js';
import { TraceTree } from './trace-tree.js';

describe('renderRunHtml', () => {
  it('renders turns, code, output and an rlm_query child nested under its sub-call', () => {
    const html = renderRunHtml(treeOf(recordedEvents('child-run')));
    expect(html).toMatch(/^<div class="rlm-trace" data-root-run-id="child-run-root">/);
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

  it('escapes every piece of model and run text', () => {
    const html = renderRunHtml(treeOf(recordedEvents('hostile-run')));
    expect(html).not.toContain('<script');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;',
    );
    expect(html).toContain('<dt>Query</dt><dd>q &lt;script&gt;');
  });

  it('gives the same HTML for the same events, whenever it is rendered', () => {
    const events = recordedEvents('simple-run');
    expect(renderRunHtml(treeOf(events))).toBe(renderRunHtml(treeOf(structuredClone(events))));
  });

  it('marks what is still running in a tree cut mid-run', () => {
    const events = recordedEvents('simple-run');
    const cut = events.findIndex((event) => event.type === 'block-start');
    const html = renderRunHtml(treeOf(events.slice(0, cut + 1)));
    expect(html).toContain('<div class="block running" data-block="0">');
    expect(html).toContain('<pre class="empty">(running…)</pre>');
    expect(html).toContain('<dt>Status</dt><dd>not finished</dd>');
    expect(html).not.toContain('class="answer"');
  });

  it('says so when there are no events yet', () => {
    expect(renderRunHtml(new TraceTree())).toBe(
      '<div class="rlm-trace">\n<p class="empty">No run events yet.</p>\n</div>\n',
    );
  });
});

describe('renderTraceHtml', () => {
  it('wraps the fragment in one self-contained document with the style sheet inline', () => {
    const tree = treeOf(recordedEvents('simple-run'));
    const html = renderTraceHtml(tree, { title: `Run <${tree.rootRunId}>` });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(
      `<body>\n<h1>Run &lt;simple-run-root&gt;</h1>\n${renderRunHtml(tree)}</body>`,
    );
    expect(html).toContain('<title>Run &lt;simple-run-root&gt;</title>');
    expect(html).toContain('.rlm-trace section.run{');
    expect(html).not.toMatch(/<script|<link|\bsrc=|https?:\/\//);
  });
});
