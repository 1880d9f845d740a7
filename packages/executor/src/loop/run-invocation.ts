import { promptVersion } from '@rlm/prompts';
import {
  buildMetadataMessage,
  buildUserPrompt,
  type ChatMessage,
  findCodeBlockSpans,
  formatIteration,
  queryMetadata,
  type ReplEnvironment,
  type ReplLanguage,
  type RLMChatCompletion,
  type RunStatus,
} from '@rlm/protocol';
import type { TaskDispatcher } from '../dispatch/task-dispatcher.js';
import type { ResumableState, TurnCheckpointer } from '../resume/turn-checkpointer.js';
import { BudgetScope } from '../run/budget-scope.js';
import { callModel } from '../run/call-model.js';
import { errorInfo } from '../run/error-info.js';
import { RunNode } from '../run/run-node.js';
import type { RunTree } from '../run/run-tree.js';
import { contextInfo, lazyContextHashes } from '../trajectory/context-fingerprint.js';
import {
  type CompactionState,
  compactIfNeeded,
  compacts,
  fullConversation,
  noteRootCall,
} from './compaction.js';
import { countErrors } from './count-errors.js';
import { turnAnswer } from './final-answer.js';
import { invocationMeta, setUpInvocation } from './invocation-setup.js';
import type { InvocationSpec } from './invocation-spec.js';
import { MetaRefresh } from './meta-refresh.js';
import { runBlocks } from './run-blocks.js';
import {
  blockNotes,
  DEFAULT_ANSWER_PROMPT,
  extraContextsNote,
  FIRST_TURN_NUDGE,
  LAST_ITERATION_NOTE,
  resetBlocks,
  resetsField,
  sessionPayloadNote,
} from './turn-notes.js';
import { refusalError, turnVerdict, type VerdictState } from './turn-verdict.js';
import { typedAnswer } from './typed-answer.js';

/** Mutable state of one invocation's loop. */
interface LoopState extends CompactionState, ResumableState, VerdictState {
  history: ChatMessage[];
  iterations: number;
  codeEverRan: boolean;
  guardUsed: boolean;
  consecutiveErrors: number;
  /** Blocks that ended with the REPL's engine replaced (`sandbox.reset`). */
  sandboxResets: number;
  /** The latest non-empty response: the partial answer if the run stops early. */
  partial: string | null;
  /** The root's background tasks (dispatcher mode only). */
  dispatcher: TaskDispatcher | null;
}

interface Outcome {
  status: RunStatus;
  answer: string | null;
  error: { code: string; message: string } | null;
}

/** True (once per invocation) for a turn-0 answer given before any code ran. */
function refusedByGuard(
  node: RunNode,
  { state, iteration }: { state: LoopState; iteration: number },
): boolean {
  if (iteration !== 0 || state.codeEverRan || state.guardUsed || !node.tree.config.firstTurnGuard) {
    return false;
  }
  state.guardUsed = true;
  return true;
}

/** The prompt opening a turn: the protocol's, what background tasks did, and the last-turn note. */
function turnPrompt({
  spec,
  state,
  iteration,
}: {
  spec: InvocationSpec;
  state: LoopState;
  iteration: number;
}): string {
  const last = iteration === spec.maxIterations - 1;
  const taskNote = state.dispatcher?.turnNote() ?? null;
  return (
    buildUserPrompt({
      rootPrompt: spec.query,
      iteration,
      contextCount: (spec.session?.contextIndex ?? 0) + 1 + (spec.contexts?.length ?? 0),
      historyCount: spec.session?.historyCount ?? 0,
    }) +
    (taskNote === null ? '' : `\n\n${taskNote}`) +
    (last ? LAST_ITERATION_NOTE : '')
  );
}

/** One turn: model call, blocks, history, limits, final answer. Returns the answer if any. */
async function turn(
  node: RunNode,
  {
    spec,
    state,
    sandbox: sandboxReady,
    iteration,
    meta,
  }: {
    spec: InvocationSpec;
    state: LoopState;
    sandbox: Promise<ReplEnvironment>;
    iteration: number;
    meta: MetaRefresh;
  },
): Promise<string | null> {
  const { config } = node.tree;
  const startedAt = node.tree.now();
  node.emit({ type: 'iteration-start', iteration });
  const prompt = turnPrompt({ spec, state, iteration });
  // The turn prompt stays in the history (unlike rlmpaper, which drops it) so each request
  // extends the previous one byte for byte: that is what lets provider prompt caches hit.
  state.history.push({ role: 'user', content: prompt });
  const response = await callModel(node, {
    model: spec.model,
    system: spec.systemPrompt,
    messages: [...state.history],
    purpose: 'root',
  });
  noteRootCall(state, { response, messageCount: state.history.length });
  const text = response.text;
  if (text.trim() !== '') state.partial = text;
  const sandbox = await sandboxReady;
  const found = findCodeBlockSpans(text, { languages: config.codeLanguages });
  const maxBlocks = config.limits.maxBlocksPerIteration;
  // In a session the sandbox's `__rlm` is from an earlier run until this one refreshes it. A
  // turn's metadata goes with a block (one round trip), the first that may read it.
  if (found.length > 0 && (iteration > 0 || spec.session !== undefined)) {
    meta.next(invocationMeta(node, spec, iteration));
  }
  const spans = found.slice(0, maxBlocks);
  const blocks = await runBlocks(node, { sandbox, spans, iteration, meta });
  if (blocks.length > 0) state.codeEverRan = true;
  state.lastCodes = blocks.map((block) => block.code);
  state.history.push(
    ...formatIteration(
      { response: text, codeBlocks: blocks },
      { maxCharacterLength: config.limits.maxOutputChars },
    ),
  );
  const notes = blockNotes({ found: found.length, ran: blocks });
  state.sandboxResets += resetBlocks(blocks);
  countErrors(node, { spec, state }, blocks);
  const verdict = await turnVerdict(node, {
    spec,
    state,
    text,
    blocks,
    sandbox: meta.reading(sandbox),
  });
  if (verdict.kind === 'none' && verdict.note !== undefined) notes.push(verdict.note);
  const answer =
    verdict.kind === 'answer' && !refusedByGuard(node, { state, iteration }) ? verdict : null;
  if (verdict.kind === 'answer' && answer === null) notes.push(FIRST_TURN_NUDGE);
  if (notes.length > 0) state.history.push({ role: 'user', content: notes.join('\n\n') });
  node.emit({
    type: 'iteration-end',
    iteration,
    response: text,
    finalAnswer: answer?.answer ?? null,
    durationMs: node.tree.now() - startedAt,
  });
  if (answer === null) return null;
  node.emit({ type: 'final-answer', answer: answer.answer, source: answer.source });
  return answer.answer;
}

/**
 * The extra call made when iterations run out (the reference engine's default answer): only a
 * `FINAL`/`FINAL_VAR` in its reply is an answer, never the raw reply, and its code does not run.
 */
async function defaultAnswer(
  node: RunNode,
  {
    spec,
    state,
    sandbox,
    meta,
  }: {
    spec: InvocationSpec;
    state: LoopState;
    sandbox: Promise<ReplEnvironment>;
    meta: MetaRefresh;
  },
): Promise<string | null> {
  const response = await callModel(node, {
    model: spec.model,
    system: spec.systemPrompt,
    messages: [...state.history, { role: 'user', content: DEFAULT_ANSWER_PROMPT }],
    purpose: 'default_answer',
  });
  if (response.text.trim() !== '') state.partial = response.text;
  const verdict = typedAnswer(
    spec.output,
    await turnAnswer(response.text, { blocks: [], sandbox: meta.reading(await sandbox) }),
  );
  if (verdict.kind !== 'answer') {
    if (verdict.mismatch !== undefined) state.lastMismatch = verdict.mismatch;
    return null;
  }
  node.emit({ type: 'final-answer', answer: verdict.answer, source: 'default_answer' });
  return verdict.answer;
}

async function loop(
  node: RunNode,
  {
    spec,
    state,
    sandbox,
    checkpointer,
  }: {
    spec: InvocationSpec;
    state: LoopState;
    sandbox: Promise<ReplEnvironment>;
    checkpointer: TurnCheckpointer | null;
  },
): Promise<Outcome> {
  if (checkpointer !== null) await checkpointer.replay(await sandbox, state);
  const first = checkpointer?.firstIteration ?? 0;
  // The text test of MetaRefresh is for JavaScript, and for a sandbox that ran only this loop's
  // blocks (a session's ran earlier runs' code, a resumed one replayed recorded code).
  const meta = new MetaRefresh({
    eager: spec.repl !== 'javascript' || spec.session !== undefined || checkpointer !== null,
  });
  for (let iteration = first; iteration < spec.maxIterations; iteration++) {
    node.scope.signal.throwIfAborted();
    state.iterations = iteration + 1;
    if (iteration > 0 && compacts(node, spec)) {
      await compactIfNeeded(node, { spec, state, sandbox, iteration });
    }
    const answer = await node.tree.tracing.iteration(node.spans, iteration, () =>
      turn(node, { spec, state, sandbox, iteration, meta }),
    );
    if (answer !== null) return { status: 'completed', answer, error: null };
    if (checkpointer !== null) await checkpointer.save(state, iteration);
  }
  node.emit({
    type: 'limit-hit',
    limit: 'iterations',
    used: spec.maxIterations,
    max: spec.maxIterations,
  });
  const answer = await defaultAnswer(node, { spec, state, sandbox, meta });
  return { status: 'max_iterations', answer, error: answer === null ? refusalError(state) : null };
}

function failure(node: RunNode, error: unknown): Outcome {
  const stop = node.scope.stopInfo;
  if (stop !== null) {
    return { status: stop.status, answer: null, error: errorInfo(node.scope.signal.reason) };
  }
  const info = errorInfo(error);
  node.emit({ type: 'error', error: info });
  return { status: 'error', answer: null, error: info };
}

/** `repl` for a Python run's `run-start`: absent means JavaScript, so those events stay as they were. */
function languageField(repl: ReplLanguage): { repl?: ReplLanguage } {
  return repl === 'javascript' ? {} : { repl };
}

/**
 * Runs one RLM invocation — the root or a child — to its end: opens its own sandbox, loops
 * turns until a final answer, a limit or an error, and always disposes the sandbox and emits
 * `run-end`. Never rejects: failures become a status on the result.
 */
export async function runInvocation(
  tree: RunTree,
  spec: InvocationSpec,
): Promise<RLMChatCompletion> {
  const startedAt = tree.now();
  let node: RunNode | undefined;
  const scope = new BudgetScope({
    parent: spec.parentScope,
    limits: spec.limits,
    deadlineAt: spec.deadlineAt,
    now: tree.now,
    onLimitHit: (hit) => node?.emit({ type: 'limit-hit', ...hit }),
  });
  node = new RunNode(tree, {
    runId: spec.runId,
    parentRunId: spec.parentRunId,
    depth: spec.depth,
    scope,
    traceContext: spec.traceContext,
  });
  if (spec.signal !== undefined) scope.follow(spec.signal, () => ({ status: 'cancelled' }));
  try {
    return await runToEnd(tree, spec, { node, scope, startedAt });
  } catch (error) {
    // Only a step outside the loop's own handling gets here (a session's `finish`, a listener):
    // the run span still ends, marked as an error, so no trace is left with a run that never ends.
    tree.tracing.abandonRun(node.spans, error);
    throw error;
  }
}

/** The invocation from its run span's start to its `run-end`. */
async function runToEnd(
  tree: RunTree,
  spec: InvocationSpec,
  { node, scope, startedAt }: { node: RunNode; scope: BudgetScope; startedAt: number },
): Promise<RLMChatCompletion> {
  const version = promptVersion(spec.systemPrompt);
  const state: LoopState = {
    history: [],
    iterations: 0,
    codeEverRan: false,
    guardUsed: false,
    consecutiveErrors: 0,
    sandboxResets: 0,
    partial: null,
    dispatcher: null,
    proposed: null,
    refusedProposal: null,
    lastMismatch: null,
    archive: [],
    compactedPrefix: 0,
    lastCall: null,
    lastCodes: [],
  };
  let outcome: Outcome;
  let sandbox: Promise<ReplEnvironment> | undefined;
  try {
    // Measuring a big array context walks every element: do it once for both uses.
    const metadata = queryMetadata(spec.context);
    const extras = (spec.contexts ?? []).map((payload) => ({
      payload,
      metadata: queryMetadata(payload),
    }));
    // One pass over a big context, shared by `run-start` and the checkpointer.
    const contextHashes = lazyContextHashes([spec.context, ...(spec.contexts ?? [])]);
    const resumedFrom = resumePoint(spec);
    const span = tree.tracing.startRun(node, spec.model.id);
    if (resumedFrom === undefined) {
      node.emit({
        type: 'run-start',
        query: spec.query ?? '',
        model: spec.model.id,
        context: [{ payload: spec.context, metadata }, ...extras].map(({ payload, metadata }, at) =>
          contextInfo(payload, metadata, contextHashes()[at]),
        ),
        maxIterations: spec.maxIterations,
        maxDepth: tree.config.maxDepth,
        promptVersion: version,
        ...span,
        ...languageField(spec.repl),
      });
    } else {
      // The run started before the stop: it has its `run-start` already, so it says it goes on.
      node.emit({
        type: 'run-resume',
        fromIteration: resumedFrom,
        model: spec.model.id,
        ...span,
      });
    }
    state.history.push({
      role: 'user',
      content:
        buildMetadataMessage(metadata) +
        sessionPayloadNote(spec.session?.contextIndex ?? 0) +
        extraContextsNote(extras.map((extra) => extra.metadata)),
    });
    const invoke = (child: InvocationSpec) => runInvocation(tree, child);
    const setup = setUpInvocation(node, { spec, state, invoke, contextHashes });
    sandbox = setup.sandbox;
    const { checkpointer } = setup;
    sandbox.catch(() => undefined);
    outcome = await loop(node, { spec, state, sandbox, checkpointer });
  } catch (error) {
    outcome = failure(node, error);
  } finally {
    // Background tasks end with the run: cancelled, each reported by a task-end event.
    await state.dispatcher?.close().catch(() => undefined);
    if (spec.session === undefined) {
      await sandbox?.then((ready) => ready.dispose()).catch(() => undefined);
    } else {
      // A session keeps its sandbox: this run's conversation becomes history_N there.
      await spec.session.finish(fullConversation(state));
    }
    scope.release();
  }
  const result: RLMChatCompletion = {
    runId: spec.runId,
    rootRunId: tree.rootRunId,
    parentRunId: spec.parentRunId,
    depth: spec.depth,
    model: spec.model.id,
    query: spec.query ?? '',
    answer: outcome.answer,
    status: outcome.status,
    // Kept apart from `answer`: only a run that ended without one reports its draft
    // (`set_answer`), else its last response.
    partialAnswer: outcome.answer === null ? (state.proposed?.content ?? state.partial) : null,
    usage: scope.usage,
    refusedCalls: scope.refusedCalls,
    ...resetsField(state.sandboxResets),
    iterations: state.iterations,
    executionTime: tree.now() - startedAt,
    trajectoryPath: tree.recorder?.path ?? null,
    promptVersion: version,
    error: outcome.error,
  };
  node.emit({
    type: 'run-end',
    status: result.status,
    answer: result.answer,
    partialAnswer: result.partialAnswer,
    usage: result.usage,
    ...(scope.refusedCalls === 0 ? {} : { refusedCalls: scope.refusedCalls }),
    ...resetsField(state.sandboxResets),
    iterations: result.iterations,
    durationMs: result.executionTime,
    ...(result.error === null ? {} : { error: result.error }),
  });
  tree.tracing.endRun(node.spans, result);
  return result;
}

/** The first turn a root going on after a stop runs live; undefined for a run that starts now. */
function resumePoint(spec: InvocationSpec): number | undefined {
  if (spec.resume !== undefined) return spec.resume.iteration + 1;
  return spec.rerun === true ? 0 : undefined;
}
