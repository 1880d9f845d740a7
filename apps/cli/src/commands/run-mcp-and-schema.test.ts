import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeAnthropicServer, type FakeModelRequest, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

// @rlm/mcp's own test server (the SDK's McpServer over stdio), started by the CLI as a child.
const MCP_SERVER = fileURLToPath(
  new URL('../../../../packages/mcp/src/client/__fixtures__/stdio-server.mjs', import.meta.url),
);

type Turn = (request: FakeModelRequest) => string;

let server: FakeAnthropicServer;
let sandbox: Sandbox;
let env: Record<string, string>;
let turns: Turn[];
let requests: FakeModelRequest[];

beforeAll(async () => {
  server = await startFakeAnthropic({
    script: (request: FakeModelRequest) => {
      requests.push(request);
      const index = request.messages.filter((message) => message.role === 'assistant').length;
      return turns[index]?.(request) ?? 'FINAL(out of script)';
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests = [];
  sandbox = createSandbox();
  env = {
    ...sandbox.env,
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server.url,
    RLM_MODEL: 'anthropic/claude-sonnet-5-5',
  };
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'alpha beta gamma\n');
});
afterEach(() => sandbox.dispose());

function run(args: string[]) {
  return runCliInProcess(['run', 'Answer', '--context', 'notes.txt', ...args], {
    cwd: sandbox.dir,
    env,
  });
}

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

describe('rlm run --mcp', () => {
  it('starts the MCP server, gives its tools to the REPL and lists them in the prompt', async () => {
    turns = [
      () =>
        repl(
          'const n = await word_count({ text: context });\nconst r = await add({ a: Number(n), b: 10 })',
        ),
      () => 'FINAL_VAR(r)',
    ];
    const result = await run(['--mcp', `"${process.execPath}" "${MCP_SERVER}"`]);
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"sum":13}\n');
    expect(requests[0]?.system).toContain(
      '`await add({ a: number, b: number })`: Adds two numbers.',
    );
  });

  it('fails before any model call when the MCP server cannot start, with its stderr', async () => {
    turns = [() => 'FINAL(never)'];
    const result = await run([
      '--mcp',
      `"${process.execPath}" -e "process.stderr.write('no token here'); process.exit(2)"`,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no token here');
    expect(requests).toEqual([]);
  });
});

describe('rlm run --output-schema', () => {
  it('refuses a non-matching answer, then prints the matching one as JSON', async () => {
    writeFileSync(
      join(sandbox.dir, 'schema.json'),
      JSON.stringify({
        type: 'object',
        properties: { words: { type: 'integer' } },
        required: ['words'],
      }),
    );
    turns = [
      () => repl('const n = context.trim().split(" ").length'),
      () => 'FINAL({"words": "three"})',
      () => 'FINAL({"words": 3})',
    ];
    const result = await run(['--output-schema', 'schema.json']);
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    expect(JSON.stringify(requests[2]?.messages)).toContain(
      'at words: Invalid input: expected number, received string; got \\"three\\"',
    );
    expect(result.stdout).toBe('{"words":3}\n');
    expect(requests[0]?.system).toContain('## Answer format');
  });

  it('says a run without an answer ended because the schema refused its answers, and where', async () => {
    writeFileSync(
      join(sandbox.dir, 'schema.json'),
      JSON.stringify({ type: 'object', properties: { words: { type: 'integer' } } }),
    );
    const wrong = () => 'FINAL({"words": "three"})';
    turns = [() => repl('const n = 3'), wrong, wrong];
    const args = ['--output-schema', 'schema.json', '--max-iterations', '2'];
    const result = await run(args);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "without an answer that matches --output-schema schema.json: the model's last final answer does not match the output schema:",
    );
    expect(result.stderr).toContain('- at words: Invalid input: expected number, received string');
    expect(result.stderr).not.toContain('without a final answer (FINAL or FINAL_VAR)');

    turns = [() => repl('const n = 3'), wrong, wrong];
    const json = await run([...args, '--json']);
    const completion = JSON.parse(json.stdout);
    expect(completion).toMatchObject({
      status: 'max_iterations',
      answer: null,
      error: { code: 'executor.answer_refused' },
    });
    expect(completion.error.message).toContain('at words: Invalid input: expected number');
  });

  it('refuses a schema file that is not JSON, naming the flag, before any model call', async () => {
    writeFileSync(join(sandbox.dir, 'bad.json'), '{ nope');
    const result = await run(['--output-schema', 'bad.json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--output-schema bad.json');
    expect(requests).toEqual([]);
  });
});
