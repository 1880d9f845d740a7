import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeAnthropicServer, type FakeModelRequest, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const EXAMPLE_TOOLS = fileURLToPath(new URL('../../examples/checksum-tools.mjs', import.meta.url));
const SHA256_OF_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

/** Turn 0 probes which host functions exist and calls the tool if it does; turn 1 answers. */
const PROBE = [
  '```repl',
  'const kinds = [typeof grep, typeof sha256].join();',
  "const digest = typeof sha256 === 'function' ? await sha256('abc') : 'none';",
  "const found = kinds + ' ' + digest;",
  'print(found);',
  '```',
].join('\n');

let server: FakeAnthropicServer;
let sandbox: Sandbox;
let env: Record<string, string>;
let systems: string[];

beforeAll(async () => {
  server = await startFakeAnthropic({
    script: (request: FakeModelRequest) => {
      systems.push(request.system ?? '');
      const turns = request.messages.filter((message) => message.role === 'assistant').length;
      return turns === 0 ? PROBE : 'FINAL_VAR(found)';
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  systems = [];
  sandbox = createSandbox();
  env = {
    ...sandbox.env,
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server.url,
    RLM_MODEL: 'anthropic/claude-sonnet-5-5',
  };
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'some notes\n');
});
afterEach(() => sandbox.dispose());

function run(args: string[], extraEnv: Record<string, string> = {}) {
  return runCliInProcess(['run', 'Probe the REPL', '--context', 'notes.txt', ...args], {
    cwd: sandbox.dir,
    env: { ...env, ...extraEnv },
  });
}

describe('rlm run: host tools on and off', () => {
  it('gives code the --tool module functions and lists them in the system prompt', async () => {
    const result = await run(['--tool', EXAMPLE_TOOLS]);
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`function,function ${SHA256_OF_ABC}\n`);
    expect(systems[0]).toContain('await sha256(text) → the hex SHA-256 digest');
    expect(systems[0]).toMatch(/\bgrep\(/);
  });

  it('--no-tools gives the bare REPL: no helpers, no tool modules, no mention in the prompt', async () => {
    const result = await run(['--tool', EXAMPLE_TOOLS, '--no-tools']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('undefined,undefined none\n');
    expect(systems[0]).not.toMatch(/\b(grep|find_all|count|lines|chunk|sha256)\(/);
  });

  it('takes tools off from RLM_TOOLS or a config file, and --tools turns them back on', async () => {
    const fromEnv = await run([], { RLM_TOOLS: 'off' });
    expect(fromEnv.stdout).toBe('undefined,undefined none\n');
    writeFileSync(
      join(sandbox.dir, 'rlm.config.json'),
      JSON.stringify({ tools: false, toolModules: [EXAMPLE_TOOLS] }),
    );
    const fromFile = await run([]);
    expect(fromFile.stdout).toBe('undefined,undefined none\n');
    const backOn = await run(['--tools']);
    expect(backOn.stdout).toBe(`function,function ${SHA256_OF_ABC}\n`);
  });

  it('replays a tool-using run when given the same --tool modules, and diverges without', async () => {
    const recorded = await run(['--tool', EXAMPLE_TOOLS]);
    const trajectory = /Trajectory: (\S+\.jsonl)/.exec(recorded.stderr)?.[1];
    expect(trajectory).toBeDefined();
    const replay = (args: string[]) =>
      runCliInProcess(['replay', trajectory!, '--context', 'notes.txt', ...args], {
        cwd: sandbox.dir,
        env,
      });
    const same = await replay(['--tool', EXAMPLE_TOOLS]);
    expect(same.stdout).toContain(`Reproduces:`);
    expect(same.code).toBe(0);
    const without = await replay([]);
    expect(without.stdout).toContain('Does not reproduce');
    expect(without.code).toBe(1);
  });

  it('shows both keys and their sources in rlm config', async () => {
    const result = await runCliInProcess(['config', '--no-tools', '--tool', 'my-tools.mjs'], {
      cwd: sandbox.dir,
      env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/tools\s+false\s+flag --no-tools\n/);
    expect(result.stdout).toContain(join(sandbox.dir, 'my-tools.mjs'));
  });
});

describe('rlm run: bad tool modules', () => {
  function writeModule(name: string, text: string): string {
    const path = join(sandbox.dir, name);
    writeFileSync(path, text);
    return path;
  }

  it('names a missing module and exits 2 before any model call', async () => {
    const result = await run(['--tool', 'nope.mjs']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Tool module ${join(sandbox.dir, 'nope.mjs')}`);
    expect(result.stderr).toContain('the file does not exist');
    expect(systems).toEqual([]);
  });

  it('names the module and the tool for a malformed or reserved tool', async () => {
    const noExport = writeModule('empty.mjs', 'export const other = 1;\n');
    const noExportRun = await run(['--tool', noExport]);
    expect(noExportRun.code).toBe(2);
    expect(noExportRun.stderr).toContain(`Tool module ${noExport}: expected \`export const tools`);

    const noCall = writeModule('no-call.mjs', "export default { lookup: { description: 'x' } };\n");
    const noCallRun = await run(['--tool', noCall]);
    expect(noCallRun.stderr).toContain(
      `Tool module ${noCall}: tool lookup: call must be a function`,
    );

    const reserved = writeModule(
      'reserved.mjs',
      "export const tools = { print: { description: 'x', call: async () => 1 } };\n",
    );
    const reservedRun = await run(['--tool', reserved]);
    expect(reservedRun.stderr).toContain('tool print: print is a name the REPL defines itself');
    expect(systems).toEqual([]);
  });

  it('refuses a tool name two modules define', async () => {
    const again = writeModule(
      'again.mjs',
      "export default { sha256: { description: 'mine', call: async () => 'x' } };\n",
    );
    const result = await run(['--tool', EXAMPLE_TOOLS, '--tool', again]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`tool sha256 is also defined by ${EXAMPLE_TOOLS}`);
  });
});
