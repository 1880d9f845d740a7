import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { contextInfo } from '@rlm/executor';
import { scriptedModel } from '@rlm/testkit';
import { parseTrajectory, recordedExchanges, TraceTree, trajectoryEvents } from '@rlm/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';
import { createRlmMcpServer, type RlmMcpServerOptions } from './rlm-mcp-server.js';
import { isMcpSessionTrajectory } from './session-trajectory.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-mcp-records-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function open(options: RlmMcpServerOptions, sampling?: (prompt: string) => string) {
  const rlm = createRlmMcpServer({ repl: { isolation: 'inline' }, ...options });
  const client = samplingClient('records-client', sampling);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await rlm.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    rlm,
    client,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await rlm.close();
    },
  };
}

const text = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

function treeOf(jsonl: string) {
  const records = parseTrajectory(jsonl);
  const tree = new TraceTree();
  for (const event of trajectoryEvents(records)) tree.apply(event);
  return { records, tree };
}

describe('the record of a client-as-root session', () => {
  it('writes the session as a trajectory beside the runs: turns, blocks, sub-calls, context fingerprint, answer', async () => {
    const session = await open({ sessionTrajectory: { dir } }, (prompt) =>
      prompt.includes('4217') ? 'it is 4217' : 'no',
    );
    const context = 'alpha\nthe magic number is 4217\n';
    await session.call('context_load', { text: context });
    await session.call('repl_exec', {
      code: 'const hit = (await grep("magic")).matches[0].text;\nprint(hit);\nconst a = await llm_query("Which number? " + hit);\nFINAL(a)',
    });
    await session.call('repl_reset', {});
    const id = session.rlm.recordId;
    await session.close();

    const jsonl = await readFile(join(dir, `${id}.jsonl`), 'utf8');
    const { records, tree } = treeOf(jsonl);
    expect(isMcpSessionTrajectory(records)).toBe(true);
    const start = trajectoryEvents(records).find((event) => event.type === 'run-start');
    expect(start).toMatchObject({
      runId: id,
      model: 'mcp-client/records-client',
      query: expect.stringContaining('MCP session'),
    });
    expect(start?.type === 'run-start' && start.context).toEqual([contextInfo(context)]);

    const root = tree.root;
    expect(root?.status).toBe('completed');
    expect(root?.answer).toEqual({ text: 'it is 4217', source: 'code' });
    expect(root?.iterations.map((turn) => turn.blocks.length)).toEqual([0, 1, 0]);
    expect(root?.iterations[0]?.response).toContain(contextInfo(context).hash);
    expect(root?.iterations[2]?.response).toContain('repl_reset');
    const turn = root?.iterations[1];
    expect(turn?.blocks[0]).toMatchObject({
      state: 'ok',
      code: expect.stringContaining('llm_query("Which number? " + hit)'),
      stdout: expect.stringMatching(/^the magic number is 4217\n/),
      finalAnswer: 'it is 4217',
    });
    expect(turn?.subcalls).toEqual([
      expect.objectContaining({
        kind: 'llm',
        model: 'sampling',
        promptPreview: 'Which number? the magic number is 4217',
        responsePreview: 'it is 4217',
        state: 'ok',
      }),
    ]);
    const [exchange] = recordedExchanges(records);
    expect(exchange?.messages).toEqual([
      { role: 'user', content: 'Which number? the magic number is 4217' },
    ]);
    expect(exchange?.response).toMatchObject({
      text: 'it is 4217',
      model: 'sampling/client-model',
    });
  });

  it('records a configured sub-model’s tokens and cost, in the sub-call and the session total', async () => {
    const model = scriptedModel(['one', 'two'], { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
    const session = await open({ subModel: model, sessionTrajectory: { dir } });
    const block = await session.call('repl_exec', {
      code: 'print((await llm_query_batched(["x", "y"])).join(","))',
    });
    expect(text(block)).toContain('one,two');
    const { costUsd } = block.structuredContent as { costUsd: number };
    expect(costUsd).toBeGreaterThan(0);
    const id = session.rlm.recordId;
    await session.close();

    const { records, tree } = treeOf(await readFile(join(dir, `${id}.jsonl`), 'utf8'));
    const ends = trajectoryEvents(records).filter((event) => event.type === 'model-call-end');
    expect(ends).toHaveLength(2);
    expect(ends.every((event) => event.type === 'model-call-end' && event.ok)).toBe(true);
    expect(tree.modelCalls).toBe(2);
    expect(tree.costUsd).toBeCloseTo(costUsd, 10);
    expect(tree.root?.iterations[0]?.usage.modelCalls).toBe(2);
    // No FINAL: the client simply ended the session.
    expect(tree.root?.status).toBe('cancelled');
    const end = trajectoryEvents(records).at(-1);
    expect(end?.type === 'run-end' && end.usage.models['scripted/model']?.calls).toBe(2);
  });

  it('records a failed block and a failed sub-call with their errors', async () => {
    const session = await open({ sessionTrajectory: { dir } });
    await session.call('repl_exec', { code: 'await llm_query("hi")' });
    await session.call('repl_exec', { code: 'throw new TypeError("bad")' });
    const id = session.rlm.recordId;
    await session.close();
    const { tree } = treeOf(await readFile(join(dir, `${id}.jsonl`), 'utf8'));
    const [first, second] = tree.root?.iterations ?? [];
    // No sampling and no model: the call is refused before it is made, so no sub-call is recorded.
    expect(first?.subcalls).toEqual([]);
    expect(first?.blocks[0]?.error).toContain('llm_query has no model');
    expect(second?.blocks[0]?.error).toBe('TypeError: bad');
  });

  it('leaves no file for a session that never touched the sandbox', async () => {
    const session = await open({ sessionTrajectory: { dir } });
    await session.client.listTools();
    await session.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it('lists the session as the resource rlm://sessions/{id}, whose content is the trajectory so far', async () => {
    const session = await open({}, () => 'ok');
    // Nothing recorded yet: nothing listed.
    expect((await session.client.listResources()).resources).toEqual([]);
    await session.call('context_load', { text: 'abc' });
    await session.call('repl_exec', { code: 'print(await llm_query("q"))' });
    const uri = `rlm://sessions/${session.rlm.recordId}`;
    const { resources } = await session.client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([uri]);
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'rlm://runs/{id}',
      'rlm://sessions/{id}',
    ]);
    const read = await session.client.readResource({ uri });
    const content = read.contents[0];
    const { tree } = treeOf(content !== undefined && 'text' in content ? content.text : '');
    expect(tree.root?.iterations).toHaveLength(2);
    expect(tree.root?.iterations[1]?.subcalls[0]?.responsePreview).toBe('ok');
    await expect(
      session.client.readResource({ uri: 'rlm://sessions/mcp-someone-else' }),
    ).rejects.toThrow(/no session trajectory/);
    await session.close();
  });

  it('refuses sub-calls past the session’s budget with executor.budget_exceeded', async () => {
    const model = scriptedModel(['first', 'second']);
    const session = await open({ subModel: model, subCallBudget: { maxSubcalls: 1 } });
    const first = await session.call('repl_exec', { code: 'print(await llm_query("a"))' });
    expect(text(first)).toContain('first');
    const second = await session.call('repl_exec', { code: 'print(await llm_query("b"))' });
    expect(text(second)).toContain("this MCP session's subcalls budget is spent (1 of 1)");
    await session.close();
  });
});
