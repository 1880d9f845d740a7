import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { runBash } from './test-support/run-bash.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

const README = join(import.meta.dirname, '..', 'README.md');

/** The api-examples section of the README, its ```bash blocks joined in order. */
async function readmeScript(): Promise<string> {
  const readme = await readFile(README, 'utf8');
  const section =
    readme.split('<!-- api-examples:start -->')[1]?.split('<!-- api-examples:end -->')[0] ?? '';
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1]).join('\n');
}

/** The README's own chat completion request bodies, as its curl lines send them. */
async function readmeChatBodies(): Promise<Record<string, unknown>[]> {
  const script = await readmeScript();
  return [...script.matchAll(/chat\/completions [^\n]*\\\n\s+-d '([^']*)'/g)].map(
    (match) => JSON.parse(match[1] ?? '') as Record<string, unknown>,
  );
}

// The server as the README's "Run it" starts it: the offline profile, the real executor engine.
let server: TestServer;
let client: OpenAI;

beforeAll(async () => {
  const offline = JSON.parse(
    await readFile(join(import.meta.dirname, '..', 'examples', 'offline.json'), 'utf8'),
  ) as { profiles: Record<string, { model: string; maxIterations: number }> };
  server = await startTestServer({
    engine: createExecutorEngine({ resolveModel: createProductionModelResolver({}) }),
    config: { profiles: offline.profiles },
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.userKey, maxRetries: 0 });
});
afterAll(() => server.close());

describe('the README examples against examples/offline.json', () => {
  it('answer what the README says they answer', { timeout: 300_000 }, async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'rlm-readme-offline-'));
    try {
      const result = await runBash(`set -u\n${await readmeScript()}`, {
        cwd,
        env: {
          ...process.env,
          RLM_URL: server.url,
          RLM_KEY: server.userKey,
          RLM_ADMIN_KEY: server.adminKey,
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(/"(answer|content|reply)":"NOT FOUND"/);
      // The run's end event; the three completions (plain, streamed, json_schema); the agent's reply.
      expect(result.stdout).toContain('"answer":"17"');
      expect(result.stdout).toContain('"content":"42"');
      expect(result.stdout).toContain('"delta":{"content":"7"}');
      expect(result.stdout).toContain('"content":"9"');
      // The two responses (plain and streamed).
      expect(result.stdout).toContain('"text":"11"');
      expect(result.stdout).toContain('"delta":"11"');
      expect(result.stdout).toMatch(/"reply":"5"/);
      // The agent turn with two senders, each with its own reply, and the compact agent's turn.
      expect(result.stdout).toContain(
        '"replies":[{"sender":"alice","reply":"5"},{"sender":"bob","reply":"5"}]',
      );
      expect(result.stdout).toContain('"messagesInTurn":2');
      expect(result.stdout).toMatch(
        /"promptStyle":"compact"[^\n]*"replies":\[\{"sender":"carol","reply":"5"\}\]/,
      );
      expect(result.stdout).toContain('- ledger-lookup: Look a number up in the ledger');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it("gives the json_schema example's number to the openai client's parse()", async () => {
    const body = (await readmeChatBodies()).find((each) => 'response_format' in each);
    expect(body).toBeDefined();
    const completion = await client.chat.completions.parse(
      body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
    );
    expect(completion.choices[0]?.message.parsed).toBe(9);
  });

  it('refuses a json_schema run that found no answer with a 422 naming how it ended', async () => {
    const request = {
      model: 'default',
      context: ['no number here'],
      messages: [{ role: 'user' as const, content: 'What is the magic number?' }],
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: 'number', schema: { type: 'integer' } },
      },
    };
    const error = await client.chat.completions.parse(request).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect(String((error as Error).message)).toMatch(/max_iterations.*json_schema "number"/);
    expect(String((error as Error).message)).not.toContain('FINAL_VAR');

    const stream = await client.chat.completions.create({ ...request, stream: true });
    const streamed = await (async () => {
      for await (const _chunk of stream) {
        // read to the end
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(String((streamed as Error | undefined)?.message)).toMatch(/max_iterations/);
  });
});

describe('a chat completion whose run ended without an answer', () => {
  it('finishes with length and empty content, its protocol text only in rlm.partialAnswer', async () => {
    const model = scriptedModel(() => '```repl\nconst answer = 1;\n```\nFINAL_VAR(answer) later');
    await using scripted = await startTestServer({
      engine: scriptedEngine(() => model),
      config: { profiles: { default: { model: 'scripted/model', maxIterations: 2 } } },
    });
    const plain = new OpenAI({
      baseURL: `${scripted.url}/v1`,
      apiKey: scripted.userKey,
      maxRetries: 0,
    });
    const completion = await plain.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'Think forever' }],
    });
    const extension = (completion as unknown as { rlm: { status: string; partialAnswer: string } })
      .rlm;
    expect(extension.status).toBe('max_iterations');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.choices[0]?.message.content).toBe('');
    expect(extension.partialAnswer).toContain('FINAL_VAR(answer)');
  });
});
