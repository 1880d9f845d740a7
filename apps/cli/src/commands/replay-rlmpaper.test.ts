import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

// A log written for these tests in the reference engine's format: three turns, six Python
// blocks (one llm_query, one rlm_query with the child's own iteration, one NameError), and the
// context it recorded (`environment_kwargs.context_payload`).
const LOG = fileURLToPath(new URL('../__fixtures__/rlmpaper-log.jsonl', import.meta.url));

let sandbox: Sandbox;
const rlm = (args: readonly string[]) =>
  runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });
beforeAll(() => {
  sandbox = createSandbox();
});
afterAll(() => sandbox.dispose());

// Pyodide loads in seconds, many more on a busy machine.
const PYTHON = { timeout: 240_000 };

/** The parts of a logged iteration the tests edit. */
interface LoggedIteration {
  code_blocks: {
    code?: string;
    result: {
      stdout: string;
      stderr: string;
      locals: Record<string, unknown>;
      rlm_calls: unknown[];
    };
  }[];
}

/** The fixture with `edit` applied to its iteration lines (the metadata line kept as it is). */
function editedLog(edit: (iterations: LoggedIteration[]) => void): string {
  const [metadata = '', ...rest] = readFileSync(LOG, 'utf8').trim().split('\n');
  const iterations = rest.map((line) => JSON.parse(line) as LoggedIteration);
  edit(iterations);
  const path = join(sandbox.dir, 'edited.jsonl');
  const lines = [metadata, ...iterations.map((line) => JSON.stringify(line))];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The block at `turn`/`block` (0-based) of edited iterations; the fixture has it. */
function blockOf(iterations: LoggedIteration[], turn: number, block: number) {
  const found = iterations[turn]?.code_blocks[block];
  if (found === undefined) throw new Error(`no block ${turn}/${block} in the fixture`);
  return found;
}

describe('rlm trace of a reference-engine log', () => {
  it('shows its turns, blocks, sub-calls, child run and answer (the built binary)', async () => {
    const result = await spawnCli(['trace', LOG], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('rlm · gpt-5-mini · 3 turns');
    expect(result.stdout).toContain('✓ block 2  number = int(lines[1].split()[-1]');
    expect(result.stdout).toContain(
      "✗ block 3  print(undefined_name)  NameError: name 'undefined_name' is not defined",
    );
    expect(result.stdout).toMatch(/↳ llm_query gpt-5-nano ✓ "Is 4242 a magic number\?.*" → yes/);
    expect(result.stdout).toMatch(/↳ rlm_query depth 1 gpt-5-mini ✓ .* → confirmed/);
    expect(result.stdout).toContain('✓ answer (text) The magic number is 4242.');
  });

  it('writes it as an HTML page and as our plain records', async () => {
    const html = await rlm(['trace', LOG, '--html', 'log.html']);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(join(sandbox.dir, 'log.html'), 'utf8');
    expect(page).toContain('print(undefined_name)');
    expect(page).toContain('The magic number is 4242.');
    const plain = await rlm(['trace', LOG, '--jsonl']);
    const types = plain.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event?: { type: string } }).event?.type);
    expect(types.filter((type) => type === 'block-end')).toHaveLength(7);
    expect(types.filter((type) => type === 'run-start')).toHaveLength(2);
  });

  it('exports it back to the same log: prompts, responses, code, output, sub-calls, answers', async () => {
    const result = await rlm(['trace', LOG, '--format', 'rlmpaper']);
    expect(result.code, result.stderr).toBe(0);
    const original = readFileSync(LOG, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const exported = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(exported[0]).toMatchObject({ type: 'metadata', root_model: 'gpt-5-mini', max_depth: 1 });
    const essentials = (line: Record<string, unknown>) => {
      const blocks = line['code_blocks'] as {
        code: string;
        result: {
          stdout: string;
          stderr: string;
          final_answer: unknown;
          rlm_calls: { response: string }[];
        };
      }[];
      return {
        prompt: line['prompt'],
        response: line['response'],
        final_answer: line['final_answer'],
        blocks: blocks.map(({ code, result: block }) => ({
          code,
          stdout: block.stdout,
          stderr: block.stderr,
          final_answer: block.final_answer,
          responses: block.rlm_calls.map((call) => call.response),
        })),
      };
    };
    expect(exported.slice(1).map(essentials)).toEqual(original.slice(1).map(essentials));
  });

  it('names the line and field of a log it cannot read', async () => {
    const path = editedLog((iterations) => {
      delete blockOf(iterations, 0, 0).code;
    });
    const result = await rlm(['trace', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'line 2 is not a reference-engine iteration (code_blocks.0.code',
    );
  });
});

describe('rlm replay of a reference-engine log', PYTHON, () => {
  it('re-runs every recorded block in the Python REPL and reports each as matching', async () => {
    const result = await rlm(['replay', LOG, '--repl', 'python']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('context: recorded in the log');
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      '  ✓ turn 1 block 1  print(len(context)) (+2 lines)',
      "  ✓ turn 1 block 2  number = int(lines[1].split()[-1].rstrip('.')) (+1 lines)",
      '  ✓ turn 2 block 1  reply = llm_query(f"Is {number} a magic number? Answer yes … (+1 lines)',
      '  ✓ turn 2 block 2  check = rlm_query("Double-check: " + lines[1]) (+1 lines)',
      '  ✓ turn 2 block 3  print(undefined_name)',
      '  ✓ turn 3 block 1  answer_text = f"The magic number is {number}."',
      'Matches: all 6 blocks print what the log recorded.',
    ]);
  });

  it('names each difference, and why where it can tell', async () => {
    const path = editedLog((iterations) => {
      // A recorded output ours cannot reproduce.
      blockOf(iterations, 0, 1).result.stdout = '8483\n';
      blockOf(iterations, 0, 1).result.locals['number'] = 4241;
      // A bare last expression: our REPL echoes it, theirs printed nothing.
      blockOf(iterations, 2, 0).code = 'answer_text = f"The magic number is {number}."\nnumber';
      // A sub-call the code makes that the log did not record, and an error that is not ours.
      blockOf(iterations, 1, 0).result.rlm_calls = [];
      blockOf(iterations, 1, 2).result.stderr = '\nKeyError: boom';
    });
    const result = await rlm(['replay', path, '--repl', 'python']);
    expect(result.code).toBe(1);
    const out = result.stdout;
    expect(out).toContain('✗ turn 1 block 2');
    expect(out).toContain('stdout differs at line 1: recorded "8483", ours "8484"');
    expect(out).toContain('variable number: recorded "4241", ours "4242"');
    expect(out).toContain('✗ turn 2 block 1');
    expect(out).toContain('sub-calls: ours made 1, the log recorded 0');
    // A variable that differs is named once, at the block where it first differs.
    expect(out.match(/variable reply:/g)).toHaveLength(1);
    expect(out).toContain(
      `error: recorded "KeyError: boom", ours "NameError: name 'undefined_name' is not defined"`,
    );
    expect(out).toContain(
      'stdout: ours ends with "4242" more: our REPL prints the value of a block\'s last expression',
    );
    expect(out).toContain('✓ turn 2 block 2');
    expect(out).toContain('Differs: 4 of 6 blocks differ from the log.');
  });

  it('refuses another REPL language for a log of Python code', async () => {
    const result = await rlm(['replay', LOG, '--repl', 'javascript']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('records Python code; replay it with --repl python');
  });
});
