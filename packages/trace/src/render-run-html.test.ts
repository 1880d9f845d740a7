import { describe, expect, it } from 'vitest';
import { parseTrajectory, trajectoryEvents } from './read-trajectory.js';
import { recordedExchanges } from './recorded-exchanges.js';
import { renderRunHtml } from './render-run-html.js';
import { renderTraceHtml } from './render-trace-html.js';
import { recordedEvents, treeOf } from './testing/recorded-runs.js';
import { syntheticRun } from './testing/synthetic-run.js';
import { TraceTree } from './trace-tree.js';
import { TRACE_VIEWER_JS } from './trace-viewer-script.generated.js';

describe('renderRunHtml', () => {
  it('renders turns, code, output, a summary and an rlm_query linked to its child run', () => {
    const html = renderRunHtml(treeOf(recordedEvents('child-run')));
    expect(html).toMatch(
      /^<div class="rlm-trace" data-root-run-id="child-run-root" data-outcome="ok">/,
    );
    expect(html).toContain('<pre class="code">const r = await rlm_query(&quot;go&quot;');
    expect(html).toContain('<pre class="stdout">child\n</pre>');
    const call = html.indexOf('<div class="subcall ok" data-kind="rlm" data-node="1">');
    expect(call).toBeGreaterThan(0);
    const child = /<p class="child-link"><a href="#run-([^"]+)">/.exec(html.slice(call))?.[1];
    expect(html).toContain(`<section class="run depth-1" id="run-${child}"`);
    // two root turns and two child turns (its turn-0 answer without code is refused once), open
    // (a small tree), each body in a template the viewer builds when it is opened
    const turns = html.match(
      /<details class="turn[^"]*" data-key="[^"]+" data-turn="\d+" open>\n<summary>[\s\S]*?<\/summary>\n<template>/g,
    );
    expect(turns).toHaveLength(4);
    expect(html).toContain(
      '<dt>Status</dt><dd class="status outcome ok" data-field="status">completed</dd>',
    );
    expect(html).toContain('<dt>Sub-calls</dt><dd class="subcalls" data-field="subcalls">1</dd>');
    expect(html).toContain(
      '<dt>Turns</dt><dd class="turns" data-field="turns">2 (4 in the tree)</dd>',
    );
  });

  it('carries the timeline as inert JSON in which no text can close its element', () => {
    const html = renderRunHtml(treeOf(recordedEvents('hostile-run')));
    const json = /<script type="application\/json" class="rlm-trace-model">([^<]*)<\/script>/.exec(
      html,
    )?.[1];
    expect(json).toBeDefined();
    expect(JSON.parse(json ?? '').nodes[0]).toMatchObject({ kind: 'run', parent: -1, level: 0 });
    // the only <script> is the data block: its query's `<script>` arrives as \u003cscript
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('escapes every piece of model and run text', () => {
    const html = renderRunHtml(treeOf(recordedEvents('hostile-run')));
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;',
    );
    expect(html).toContain('<dt>Query</dt><dd class="query" data-field="query">q &lt;script&gt;');
    expect(html.match(/<script/g)).toHaveLength(1);
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
    expect(html).toContain(
      '<dt>Status</dt><dd class="status outcome running" data-field="status">not finished</dd>',
    );
    expect(html).not.toContain('<div class="answer">');
  });

  it('says so when there are no events yet', () => {
    expect(renderRunHtml(new TraceTree())).toBe(
      '<div class="rlm-trace">\n<p class="empty">No run events yet.</p>\n</div>\n',
    );
  });
});

describe('renderRunHtml with the recorded exchanges', () => {
  it('shows each llm_query prompt in full: its context slices when read with the context, a marked note when not', () => {
    const run = syntheticRun({ subcalls: 3, childEvery: 0 });
    const render = (payloads?: string[]) => {
      const records = parseTrajectory(run.text, payloads === undefined ? {} : { payloads });
      return renderRunHtml(treeOf(trajectoryEvents(records)), {
        exchanges: recordedExchanges(records),
      });
    };
    const chunk = run.context.split('\n')[1] ?? '';
    const full = render([run.context]);
    expect(full.match(/<details class="exchange">/g)).toHaveLength(3);
    expect(full).toContain(
      `<pre class="prompt full">Summarise the ticket in one line.\n\n${chunk}`,
    );
    expect(full).not.toContain('slice-missing');
    const bare = render();
    expect(bare).not.toContain(chunk);
    expect(bare).toMatch(
      /<pre class="prompt full">Summarise the ticket in one line.\n\n<mark class="slice-missing">\[\d+ chars of context \(\d+ chars, sha256:[0-9a-f]+\) from offset \d+: that context was not given\]<\/mark>/,
    );
  });
});

describe('renderTraceHtml', () => {
  it('wraps the fragment in one self-contained document with the style sheet and script inline', () => {
    const tree = treeOf(recordedEvents('simple-run'));
    const html = renderTraceHtml(tree, { title: `Run <${tree.rootRunId}>` });
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(
      `<body>\n<h1>Run &lt;simple-run-root&gt;</h1>\n${renderRunHtml(tree)}<script>${TRACE_VIEWER_JS}</script>\n</body>`,
    );
    expect(html).toContain('<title>Run &lt;simple-run-root&gt;</title>');
    expect(html).toContain('.rlm-trace section.run{');
    // nothing loads from anywhere: no links, no sources, no addresses
    expect(html).not.toMatch(/<link|\bsrc=|https?:\/\//);
  });
});
