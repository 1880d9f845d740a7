import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type HeadlessChromium,
  launchHeadlessChromium,
  systemChromiumOrWarn,
} from '@rlm/testkit/browser';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCost } from './format-units.js';
import { parseTrajectory, trajectoryEvents } from './read-trajectory.js';
import { recordedExchanges } from './recorded-exchanges.js';
import { renderTraceHtml } from './render-trace-html.js';
import { type SyntheticRun, syntheticRun } from './testing/synthetic-run.js';
import { TraceTree } from './trace-tree.js';

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
const hasChromium = systemChromiumOrWarn('TRACE VIEWER BROWSER TESTS');

let chrome: HeadlessChromium<BrowserContext> | undefined;
let browser: BrowserContext;
let pagesDir: string;

beforeAll(async () => {
  if (!hasChromium) return;
  pagesDir = await mkdtemp(join(tmpdir(), 'rlm-trace-pages-'));
  await mkdir(ARTIFACTS, { recursive: true });
  chrome = await launchHeadlessChromium(chromium, { viewport: { width: 1280, height: 900 } });
  browser = chrome.context;
});

afterAll(async () => {
  await chrome?.close();
  if (pagesDir !== undefined) await rm(pagesDir, { recursive: true, force: true });
});

/** The run's page as `rlm trace --html --context` writes it. */
async function writePage(name: string, run: SyntheticRun): Promise<string> {
  const records = parseTrajectory(run.text, { payloads: [run.context] });
  const tree = new TraceTree();
  for (const event of trajectoryEvents(records)) tree.apply(event);
  const path = join(pagesDir, `${name}.html`);
  await writeFile(path, renderTraceHtml(tree, { exchanges: recordedExchanges(records) }));
  return path;
}

/** Opens a page with every network request refused; the list of requests it tried. */
async function openOffline(path: string): Promise<{ page: Page; attempted: string[] }> {
  const page = await browser.newPage();
  const attempted: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) attempted.push(request.url());
  });
  await page.route('**/*', (route) =>
    route.request().url().startsWith('file:') ? route.continue() : route.abort(),
  );
  await page.goto(pathToFileURL(path).href);
  return { page, attempted };
}

/** Every timeline row, scrolled through (only the rows in view exist): key, kind and cost text. */
async function timelineRows(page: Page): Promise<{ key: string; kind: string; cost: string }[]> {
  return page.locator('section.timeline .tl-body').evaluate(async (body) => {
    const seen = new Map<string, { key: string; kind: string; cost: string; top: number }>();
    // Runs in the page (typed through globalThis: this package has no DOM types). Two frames
    // let the timeline draw the rows now in view.
    const frame = () =>
      new Promise((resolve) =>
        (
          globalThis as unknown as { requestAnimationFrame(callback: () => void): number }
        ).requestAnimationFrame(() => resolve(null)),
      );
    const wait = async () => {
      await frame();
      await frame();
    };
    for (let top = 0; ; top += body.clientHeight) {
      body.scrollTop = top;
      body.dispatchEvent(new Event('scroll'));
      await wait();
      for (const row of body.querySelectorAll<typeof body>('.tl-row')) {
        if (row.querySelector('.tl-bar') === null) continue;
        seen.set(row.dataset['key'] ?? '', {
          key: row.dataset['key'] ?? '',
          kind: row.dataset['kind'] ?? '',
          cost: row.querySelector('.tl-cost')?.textContent ?? '',
          top: Number.parseFloat(row.style.top),
        });
      }
      if (top >= body.scrollHeight) break;
    }
    body.scrollTop = 0;
    return [...seen.values()].sort((a, b) => a.top - b.top);
  });
}

describe.skipIf(!hasChromium)('the trace viewer in headless Chromium', () => {
  it('shows a recorded 240-sub-call run offline: summary, one bar per sub-call, per-node cost, search', {
    timeout: 120_000,
  }, async () => {
    const run = syntheticRun({ subcalls: 240 });
    const path = await writePage('run-240', run);
    const { page, attempted } = await openOffline(path);
    const summary = page.getByTestId('summary');
    expect(await summary.locator('[data-field="status"]').textContent()).toBe('completed');
    expect(await summary.locator('[data-field="subcalls"]').textContent()).toBe('240');
    expect(await summary.locator('[data-field="answer"]').textContent()).toBe(
      'Most tickets ask for a refund.',
    );
    expect(await summary.locator('[data-field="cost"]').textContent()).toBe(
      formatCost(run.totalCostUsd),
    );
    expect(await summary.locator('[data-field="turns"]').textContent()).toMatch(
      /^4 \(\d+ in the tree\)$/,
    );
    expect(await summary.locator('[data-field="tokens"]').textContent()).toMatch(/ in \/ .* out$/);
    expect(await summary.locator('[data-field="wall"]').textContent()).toMatch(/\d(ms|s)$/);
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-240.png') });

    // one bar per sub-call, plus the root's, in call order
    const rows = await timelineRows(page);
    expect(rows.filter((row) => row.kind === 'llm' || row.kind === 'rlm')).toHaveLength(240);
    expect(rows.filter((row) => row.kind === 'run')).toHaveLength(1);
    expect(await page.locator('section.timeline').getAttribute('data-rows')).toBe('241');
    // each llm_query's own cost (the i-th costs (i + 1) / 10,000 dollars; a failed one nothing),
    // each child run's cost its whole subtree's
    const llm = rows.filter((row) => row.kind === 'llm');
    expect(llm.map((row) => row.cost)).toEqual(
      llm.map((_, index) => formatCost((index + 1) % 25 === 0 ? 0 : run.subcallCost(index))),
    );
    const firstChild = rows.findIndex((row) => row.kind === 'rlm');
    const before = rows.slice(0, firstChild).filter((row) => row.kind === 'llm').length;
    expect(rows[firstChild]?.cost).toBe(
      formatCost(0.01 + run.subcallCost(before) + run.subcallCost(before + 1)),
    );

    // turns start folded (a big run) and are built when opened
    const firstTurn = page.locator('details.turn[data-key="synthetic-root/turn-0"]');
    expect(await firstTurn.getAttribute('open')).toBeNull();
    expect(await firstTurn.locator('.subcall').count()).toBe(0);
    await firstTurn.locator('> summary').click();
    // A details element's toggle event comes after the click, as a task of its own: the body is
    // built then, so wait for it rather than count at once.
    await expect.poll(() => firstTurn.locator(':scope > .subcall').count()).toBeGreaterThan(50);
    expect(await firstTurn.locator('pre.code').textContent()).toContain('llm_query_batched');

    // search: one sub-call's reply, then a block's error
    const search = page.getByTestId('search');
    await search.fill('summary 17:');
    await page.getByTestId('search-count').filter({ hasText: 'match' }).waitFor();
    expect(await page.locator('section.timeline').getAttribute('data-rows')).toBe('2');
    const hits = page.locator('section.timeline .tl-row:not(.dimmed)');
    expect(await hits.count()).toBe(1);
    expect(await page.locator('details.turn:not([hidden])').count()).toBe(1);
    expect(await page.locator('mark.search-hit').first().textContent()).toBe('summary 17:');
    await hits.click();
    await expect
      .poll(() => page.locator('.subcall.flash > pre.reply').textContent())
      .toBe('summary 17: refund request');
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-240-search.png') });
    await search.fill('out.map is not a function');
    await expect
      .poll(() =>
        page
          .locator('details.turn:not([hidden])')
          .evaluateAll((turns) => turns.map((turn) => turn.getAttribute('data-key'))),
      )
      .toEqual(['synthetic-root/turn-1']);
    expect(await page.locator('details.turn:not([hidden]) pre.error').textContent()).toBe(
      'TypeError: out.map is not a function',
    );
    await search.fill('');
    await expect.poll(() => page.locator('section.timeline').getAttribute('data-rows')).toBe('241');

    // the context slices of each llm_query's prompt, in full (the page was read with the context)
    const exchange = page.locator('.subcall[data-kind="llm"] details.exchange').first();
    await exchange.locator('summary').click();
    expect(await exchange.locator('pre.prompt.full').textContent()).toContain(
      run.context.split('\n')[0],
    );
    expect(attempted).toEqual([]);
    await page.close();
  });

  it('renders a 3,000-sub-call run and scrolls its timeline to the end (times printed)', {
    timeout: 300_000,
  }, async () => {
    const run = syntheticRun({ subcalls: 3000, turns: 10 });
    let at = performance.now();
    const path = await writePage('run-3000', run);
    const written = performance.now() - at;
    at = performance.now();
    const { page, attempted } = await openOffline(path);
    await page.locator('section.timeline .tl-row').first().waitFor();
    const opened = performance.now() - at;
    // The longest task the page ran while the timeline was scrolled end to end: a stall shows here.
    await page.evaluate(() => {
      const page = globalThis as unknown as { longestTask: number };
      page.longestTask = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          page.longestTask = Math.max(page.longestTask, entry.duration);
        }
      }).observe({ type: 'longtask' } as never);
    });
    at = performance.now();
    const rows = await timelineRows(page);
    const scrolled = performance.now() - at;
    const longestTask = await page.evaluate(
      () => (globalThis as unknown as { longestTask: number }).longestTask,
    );
    expect(rows.filter((row) => row.kind !== 'run')).toHaveLength(3000);
    expect(await page.locator('section.timeline .tl-row').count()).toBeLessThan(200);
    await page.screenshot({ path: join(ARTIFACTS, 'trace-viewer-3000.png') });
    process.stdout.write(
      `trace viewer, 3,000 sub-calls: page written in ${Math.round(written)} ms, opened in ${Math.round(opened)} ms, timeline scrolled end to end in ${Math.round(scrolled)} ms (longest task while scrolling: ${Math.round(longestTask)} ms; none over 50 ms reads 0)\n`,
    );
    expect(attempted).toEqual([]);
    await page.close();
  });
});
