import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import {
  type HeadlessChromium,
  launchHeadlessChromium,
  systemChromiumOrWarn,
} from '@rlm/testkit/browser';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { deferred } from '../test-support/read-sse.js';
import { startTestServer } from '../test-support/start-test-server.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const hasChromium = systemChromiumOrWarn('UI BROWSER TESTS');

let chrome: HeadlessChromium<BrowserContext> | undefined;
let browser: BrowserContext;

beforeAll(async () => {
  if (!hasChromium) return;
  await mkdir(ARTIFACTS, { recursive: true });
  chrome = await launchHeadlessChromium(chromium);
  browser = chrome.context;
});

afterAll(async () => {
  await chrome?.close();
});

describe.skipIf(!hasChromium)('UI pages in headless Chromium', () => {
  it('shows a run live in the shared trace view: turns, code, output, sub-calls, final status', {
    timeout: 60_000,
  }, async () => {
    const gate = deferred<string>();
    let rootCalls = 0;
    // One model serves the root and its llm_query sub-call; the sub-call has no system prompt.
    const model = scriptedModel((request) => {
      if (request.system === undefined) return 'a short greeting';
      rootCalls += 1;
      if (rootCalls > 1) return gate.promise;
      return '```repl\nconst words = context.split(" ");\nconst kind = await llm_query("Classify: " + context);\nprint("words:", words.length, kind)\n```';
    });
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How many words?', context: 'one two three four five' }),
    });
    const { id } = (await created.json()) as { id: string };
    const page = await browser.newPage();
    // When the page itself sends each view request: arrival times at the server (or CDP's
    // request events) carry the machine's scheduling jitter, which is not what the page controls.
    await page.addInitScript(() => {
      // Runs in the page; typed through globalThis because this package has no DOM types.
      const page = globalThis as unknown as { fetch: typeof fetch; viewSends: number[] };
      const sent: number[] = [];
      page.viewSends = sent;
      const original = page.fetch.bind(globalThis);
      page.fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith('/view')) sent.push(Date.now());
        return original(input, init);
      };
    });
    await page.goto(`${server.url}/ui/runs/${id}#key=${server.userKey}`);
    const root = page.locator('.rlm-trace section.run[data-depth="0"]');
    await root
      .locator('details.turn[data-turn="0"] .block pre.stdout')
      .filter({ hasText: 'words: 5 a short greeting' })
      .waitFor();
    // the second turn waits for the gated model: the run is live, and turn 1 is folded by the reader
    await root.locator('details.turn[data-turn="1"]').waitFor();
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    expect(page.url()).not.toContain(server.userKey);
    await root.locator('details.turn[data-turn="0"] > summary').click();
    gate.resolve('FINAL_VAR(words)');
    await page.getByTestId('connection').filter({ hasText: 'finished' }).waitFor();
    expect(await page.getByTestId('run-status').textContent()).toBe('completed');
    expect(await root.locator(':scope > .answer pre').textContent()).toContain('five');
    const turns = root.locator(':scope > details.turn');
    expect(await turns.count()).toBe(2);
    // refreshed several times since, yet the turn the reader closed is still closed
    expect(await turns.nth(0).getAttribute('open')).toBeNull();
    expect(await turns.nth(1).getAttribute('open')).toBe('');
    // a folded turn's body is built when it is opened
    expect(await turns.nth(0).locator('pre.code').count()).toBe(0);
    await turns.nth(0).locator('> summary').click();
    expect(await root.locator('pre.code').first().textContent()).toContain('context.split');
    const subcall = root.locator('.subcall[data-kind="llm"]');
    expect(await subcall.locator('pre.prompt').textContent()).toContain('Classify: one two three');
    expect(await subcall.locator('pre.reply').textContent()).toBe('a short greeting');
    // the page is the trace viewer on the fragment of /v1/runs/:id/view (what rlm trace --html
    // writes): the same summary, and a timeline with one bar for the root and its sub-call
    const fragment = await (await server.request(`/v1/runs/${id}/view`)).text();
    const probe = await browser.newPage();
    await probe.setContent(fragment);
    expect(await page.getByTestId('summary').innerHTML()).toBe(
      await probe.getByTestId('summary').innerHTML(),
    );
    expect(await page.getByTestId('summary').locator('[data-field="subcalls"]').textContent()).toBe(
      '1',
    );
    await probe.close();
    const timeline = page.getByTestId('timeline');
    expect(await timeline.getAttribute('data-rows')).toBe('2');
    expect(
      await timeline
        .locator('.tl-row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind'))),
    ).toEqual(['run', 'llm']);
    // a burst of events is one refresh a second at most (a slow machine only spaces them more)
    const sends = await page.evaluate(
      () => (globalThis as unknown as { viewSends: number[] }).viewSends,
    );
    const gaps = sends.slice(1).map((at, index) => at - (sends[index] ?? 0));
    expect(sends.length).toBeGreaterThanOrEqual(2);
    // The page waits REFRESH_MS (1 s) between sends; its timers may fire a few ms early against
    // Date.now (seen: 6 ms), so the bound only leaves room for that, not for a missing throttle.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(950);
    await page
      .getByTestId('run-tree')
      .evaluate((node) => node.querySelector('details.turn')?.setAttribute('open', ''));
    await page.screenshot({ path: join(ARTIFACTS, 'ui-run-page.png'), fullPage: true });
    await page.close();
  });

  it('lists the caller’s runs newest first, with their columns and links to each run page', {
    timeout: 90_000,
  }, async () => {
    const model = scriptedModel(() => 'FINAL(done)');
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const start = async (query: string, key = server.userKey): Promise<string> => {
      const created = await server.request('/v1/runs', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const { id } = (await created.json()) as { id: string };
      for (;;) {
        const run = (await (await server.request(`/v1/runs/${id}`, { key })).json()) as {
          status: string;
        };
        if (run.status !== 'queued' && run.status !== 'running') return id;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const ids: string[] = [];
    for (const query of ['first question', 'second question', 'third <b>question</b>']) {
      ids.push(await start(query));
    }
    await start('not yours', server.otherKey);
    const listed = (await (await server.request('/v1/runs')).json()) as {
      data: { id: string; model: string; costUsd: number; usage: { models: object } }[];
    };
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/ui/runs#key=${server.userKey}`);
    const rows = page.getByTestId('runs').locator('tbody tr');
    await rows.nth(2).waitFor();
    expect(await rows.count()).toBe(3);
    expect(
      await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-run-id'))),
    ).toEqual([...ids].reverse());
    const cells = await rows
      .first()
      .locator('td')
      .evaluateAll((nodes) => nodes.map((node) => node.textContent));
    const newest = listed.data[0];
    const tokens = Object.values(newest?.usage.models ?? {}).reduce(
      (sum, usage) =>
        sum +
        usage.inputTokens +
        usage.outputTokens +
        usage.cacheReadTokens +
        usage.cacheWriteTokens,
      0,
    );
    expect(cells[0]).toBe(ids[2]);
    expect(cells[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    expect(cells.slice(2)).toEqual([
      'completed',
      newest?.model,
      'third <b>question</b>',
      `$${(newest?.costUsd ?? 0).toFixed(4)}`,
      String(tokens).replace(/\B(?=(\d{3})+(?!\d))/g, ','),
    ]);
    expect(tokens).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'ui-runs-page.png') });
    await page.getByTestId('status-filter').selectOption('error');
    await page.getByTestId('connection').filter({ hasText: '0 runs' }).waitFor();
    await page.getByTestId('status-filter').selectOption('');
    await rows.nth(2).waitFor();
    await rows.first().locator('a').click();
    await page.waitForURL(`**/ui/runs/${ids[2]}`);
    await page.getByTestId('connection').filter({ hasText: 'finished' }).waitFor();
    expect(await page.getByTestId('summary').locator('[data-field="query"]').textContent()).toBe(
      'third <b>question</b>',
    );
    expect(await page.getByTestId('timeline').getAttribute('data-rows')).toBe('1');
    await page.screenshot({ path: join(ARTIFACTS, 'ui-run-viewer.png') });
    await page.close();
  });

  it('refuses another key’s run in the page', { timeout: 60_000 }, async () => {
    const model = scriptedModel(['```repl\nprint(1)\n```', 'FINAL(1)']);
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q' }),
    });
    const { id } = (await created.json()) as { id: string };
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/runs/${id}#key=${server.otherKey}`);
    await page.getByTestId('connection').filter({ hasText: 'not found' }).waitFor();
    expect(await page.locator('.rlm-trace').count()).toBe(0);
    await page.close();
  });

  it('shows an agent’s last-turn prompt layer by layer, skills, layers, senders and exchanges', {
    timeout: 60_000,
  }, async () => {
    const model = scriptedModel(() => 'FINAL(hello back)');
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const post = (path: string, body: object) =>
      server.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const agent = (await (await post('/v1/agents', { identityTag: 'Pager' })).json()) as {
      id: string;
    };
    await server.request(`/v1/agents/${agent.id}/prompt-layers/6`, {
      method: 'PUT',
      key: server.adminKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Decide quickly.' }),
    });
    await server.request(`/v1/agents/${agent.id}/skills/paging`, {
      method: 'PUT',
      key: server.adminKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'Page the on-call engineer.' }),
    });
    await post(`/v1/agents/${agent.id}/messages`, { sender: 'erin', body: 'hello agent' });
    const page = await browser.newPage();
    await page.goto(`${server.url}/ui/agents/${agent.id}#key=${server.userKey}`);
    await page.getByTestId('layers').waitFor();
    // The last turn's prompt, layer by layer, exactly as the model got it.
    const sent = model.requests[0]?.system ?? '';
    const turnLayers = page.getByTestId('last-turn').locator('.turn-layer');
    expect(
      await turnLayers.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-layer'))),
    ).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    const texts = await turnLayers.locator('pre').allTextContents();
    for (const text of texts) expect(sent).toContain(text);
    expect(texts[5]).toContain('- paging: Page the on-call engineer.');
    expect(texts[10]).toContain('Message 1 from "erin"');
    expect(await page.getByTestId('skills').textContent()).toContain('Page the on-call engineer.');
    const kinds = await page
      .locator('.layer')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-mutability')));
    expect(kinds).toEqual([...Array(6).fill('immutable'), ...Array(4).fill('mutable'), 'dynamic']);
    expect(await page.locator('.layer[data-layer="6"] details').count()).toBe(2);
    await page.locator('a[data-sender="erin"]').click();
    await page.getByTestId('exchanges').filter({ hasText: 'hello back' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'ui-agent-page.png'), fullPage: true });
    await page.close();
  });
});
