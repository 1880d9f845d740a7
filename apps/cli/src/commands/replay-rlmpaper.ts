import {
  type JsonValue,
  type REPLResult,
  RESERVED_NAMES,
  type ReplEnvironment,
  RlmError,
} from '@rlm/protocol';
import type { RlmpaperBlock, RlmpaperCall, RlmpaperLog } from '@rlm/trace';

/** What replaying one recorded block found. */
export interface BlockReplay {
  /** 1-based, as the log counts turns. */
  turn: number;
  /** 1-based within the turn. */
  block: number;
  code: string;
  /** Each way our run of the block differs from the recorded one, with why when it can tell. */
  differences: string[];
}

/** The host functions a replayed block may call, answered from the block's recorded sub-calls. */
type HostFunctions = Record<
  string,
  { description: string; call: (args: JsonValue[]) => Promise<JsonValue> }
>;

/** Makes the Python REPL a replay runs in (the CLI's loads @rlm/sandbox-python). */
export type ReplayReplFactory = (options: {
  context: JsonValue | undefined;
  functions: HostFunctions;
}) => Promise<ReplEnvironment>;

const QUERY_FUNCTIONS = ['llm_query', 'rlm_query'] as const;
const BATCHED_FUNCTIONS = ['llm_query_batched', 'rlm_query_batched'] as const;

/** Names the scaffold owns, which a recorded `locals` may list but no block set. */
function isScaffoldName(name: string): boolean {
  return RESERVED_NAMES.includes(name) || /^(context|history)_\d+$/.test(name) || name === 'answer';
}

function quote(text: string, max = 80): string {
  const flat = JSON.stringify(text);
  return flat.length > max ? `${flat.slice(0, max - 2)}…"` : flat;
}

function promptText(prompt: JsonValue | undefined): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt)) {
    const last = prompt.at(-1);
    if (last !== null && typeof last === 'object' && !Array.isArray(last)) {
      const content = last['content'];
      return typeof content === 'string' ? content : JSON.stringify(content);
    }
  }
  return JSON.stringify(prompt ?? null);
}

/** The `Name: message` the reference engine appends to stderr when a block raises. */
function recordedError(stderr: string): string | undefined {
  const last = stderr.trim().split('\n').at(-1)?.trim() ?? '';
  return /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b/.test(last) ? last : undefined;
}

function ourError(result: REPLResult): string | undefined {
  return result.error === null ? undefined : `${result.error.name}: ${result.error.message}`;
}

/** Whether the block's last line is a bare expression, which our REPL echoes like a notebook. */
function endsWithExpression(code: string): boolean {
  const last = code.trimEnd().split('\n').at(-1) ?? '';
  if (last.trim() === '' || /^\s/.test(last)) return false;
  if (
    /^(import|from|def|class|if|for|while|with|try|return|pass|del|raise|assert|global)\b/.test(
      last,
    )
  )
    return false;
  if (/^\s*print\s*\(/.test(last)) return false;
  // An assignment (not a comparison) is a statement.
  return !/^[\w.[\]'", ]+\s*([+\-*/%&|^]|\/\/|\*\*)?=(?!=)/.test(last);
}

function stdoutDifference(
  recorded: string,
  ours: string,
  { code, contextMissing }: { code: string; contextMissing: boolean },
): string | undefined {
  if (recorded === ours) return undefined;
  if (ours.startsWith(recorded) && endsWithExpression(code)) {
    return `stdout: ours ends with ${quote(ours.slice(recorded.length).trimEnd())} more: our REPL prints the value of a block's last expression (as a notebook does), the reference engine's does not`;
  }
  const recordedLines = recorded.split('\n');
  const ourLines = ours.split('\n');
  let line = 0;
  while (line < recordedLines.length && recordedLines[line] === ourLines[line]) line++;
  const why = contextMissing ? ' (no context was recorded or given: pass --context)' : '';
  return `stdout differs at line ${line + 1}: recorded ${quote(recordedLines[line] ?? '')}, ours ${quote(ourLines[line] ?? '')}${why}`;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The recorded variables ours disagrees with. The reference engine logs a value JSON can hold as
 * it is and anything else as its `repr` (a string): only the first kind is compared.
 */
async function localsDifferences(
  recorded: Record<string, JsonValue>,
  repl: ReplEnvironment,
  named: Set<string>,
): Promise<string[]> {
  const differences: string[] = [];
  for (const [name, value] of Object.entries(recorded)) {
    if (name.startsWith('_') || isScaffoldName(name)) continue;
    const ours = await repl.getVariable(name);
    if (ours === undefined) {
      differences.push(
        `variable ${name}: recorded ${quote(JSON.stringify(value))}, ours is not set`,
      );
      continue;
    }
    // A `repr` of an object (a set, a class instance) is not the value: not comparable.
    if (typeof value === 'string' && typeof ours !== 'string') continue;
    const difference = `variable ${name}: recorded ${quote(JSON.stringify(value))}, ours ${quote(JSON.stringify(ours))}`;
    // A variable that differs once would differ at every later block: name it where it starts.
    if (!sameJson(value, ours) && !named.has(difference)) {
      named.add(difference);
      differences.push(difference);
    }
  }
  return differences;
}

/** How the block's stdout, error and final answer differ from the recorded ones. */
function blockDifferences(
  block: RlmpaperBlock,
  result: REPLResult,
  contextMissing: boolean,
): string[] {
  const differences: string[] = [];
  const stdout = stdoutDifference(block.result.stdout, result.stdout, {
    code: block.code,
    contextMissing,
  });
  if (stdout !== undefined) differences.push(stdout);
  const recorded = recordedError(block.result.stderr);
  const ours = ourError(result);
  // Both tell the exception's type and message last; only the traceback above it differs.
  if (recorded !== ours) {
    differences.push(
      `error: recorded ${recorded === undefined ? 'none' : quote(recorded)}, ours ${ours === undefined ? 'none' : quote(ours)}`,
    );
  }
  if ((block.result.final_answer ?? null) !== (result.finalAnswer ?? null)) {
    differences.push(
      `final answer: recorded ${quote(String(block.result.final_answer))}, ours ${quote(String(result.finalAnswer))}`,
    );
  }
  return differences;
}

/** Answers a block's sub-calls with its recorded ones, in order, and notes what does not line up. */
class RecordedCalls {
  private queue: RlmpaperCall[] = [];
  private made = 0;
  readonly notes: string[] = [];

  start(block: RlmpaperBlock): void {
    this.queue = [...block.result.rlm_calls];
    this.made = 0;
    this.notes.length = 0;
  }

  answer(name: string, prompt: JsonValue | undefined): string {
    this.made += 1;
    const call = this.queue.shift();
    if (call === undefined) return `Error: the log recorded no answer for this ${name} call`;
    const asked = typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? null);
    const recorded = promptText(call.prompt);
    if (asked !== recorded) {
      this.notes.push(
        `sub-call ${this.made} (${name}) asked ${quote(asked)}, the log recorded ${quote(recorded)}`,
      );
    }
    return call.response ?? '';
  }

  finish(recordedCount: number): string[] {
    if (this.made !== recordedCount) {
      this.notes.push(
        `sub-calls: ours made ${this.made}, the log recorded ${recordedCount} (their answers are replayed in order)`,
      );
    }
    return [...this.notes];
  }

  functions(): HostFunctions {
    const functions: HostFunctions = {};
    for (const name of QUERY_FUNCTIONS) {
      functions[name] = {
        description: `${name}, answered from the log`,
        call: async ([prompt]) => this.answer(name, prompt),
      };
    }
    for (const name of BATCHED_FUNCTIONS) {
      functions[name] = {
        description: `${name}, answered from the log`,
        call: async ([prompts]) =>
          Array.isArray(prompts) ? prompts.map((prompt) => this.answer(name, prompt)) : [],
      };
    }
    return functions;
  }
}

/**
 * Runs the root's recorded code blocks again, in order, in one persistent REPL over the recorded
 * context, answering sub-calls from the log, and compares each block's stdout, error, final
 * answer and variables with what the log recorded.
 *
 * @throws RlmError `cli.trajectory_invalid` when the log holds no run
 */
export async function replayRlmpaperLog(
  log: RlmpaperLog,
  {
    context,
    createRepl,
    path,
  }: { context: JsonValue | undefined; createRepl: ReplayReplFactory; path: string },
): Promise<BlockReplay[]> {
  const run = log.runs[0];
  if (run === undefined) {
    throw new RlmError({
      code: 'cli.trajectory_invalid',
      message: `Trace log ${path} has no iterations to replay.`,
      details: { path, line: undefined },
    });
  }
  const calls = new RecordedCalls();
  const repl = await createRepl({ context, functions: calls.functions() });
  const replays: BlockReplay[] = [];
  const named = new Set<string>();
  try {
    for (const [turn, iteration] of run.entries()) {
      for (const [index, block] of iteration.code_blocks.entries()) {
        calls.start(block);
        const result = await repl.execute(block.code);
        const differences = [
          ...blockDifferences(block, result, context === undefined),
          ...calls.finish(block.result.rlm_calls.length),
          ...(await localsDifferences(block.result.locals, repl, named)),
        ];
        replays.push({ turn: turn + 1, block: index + 1, code: block.code, differences });
      }
    }
  } finally {
    await repl.dispose();
  }
  return replays;
}
