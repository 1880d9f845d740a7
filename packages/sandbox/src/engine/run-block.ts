import type { BlockError, REPLResult, UnawaitedCalls } from '@rlm/protocol';
import type { RlmError } from '@rlm/protocol/core';
import type { QuickJSHandle } from 'quickjs-emscripten-core';
import { type ResetReason, resetBlockError, resetResult } from '../sandbox-reset.js';
import type { BlockClock } from './block-clock.js';
import {
  formatBlockError,
  guestBlockError,
  limitBlockError,
  limitErrors,
} from './block-outcome.js';
import { EngineFault, undescribedError } from './engine-faults.js';
import { type EngineParts, type EngineRunOptions, endClock, startClock } from './engine-parts.js';
import { dropLeftoverJobs, pumpJobs } from './leftover-jobs.js';
import { rewriteBlock } from './rewrite-block.js';
import type { EndedBlock } from './scaffold.js';

/** JS_EVAL_FLAG_ASYNC: top-level await, completion value as a promise of `{ value }`. */
const EVAL_FLAG_ASYNC = 1 << 7;
const BLOCK_FILE = 'block.js';
/** How long a block may go on without letting its thread's timers and I/O run. */
const YIELD_EVERY_MS = 50;
/** CPU time naming the variables' types may take of a block's budget. */
const LOCALS_MS = 250;

type Settled =
  | { kind: 'value'; holder: QuickJSHandle }
  | { kind: 'thrown'; error: QuickJSHandle }
  | { kind: 'limit'; error: RlmError };

/**
 * Runs one block. Guest code runs only in the block's slices: the code itself, the jobs it
 * queues, the host results applied to its promises, and then (under the same clock) printing its
 * completion value, describing what it threw and naming its variables' types. Host functions
 * answer until the block's promise settles or a limit stops it; the jobs it leaves are stopped
 * before this returns. Guest errors and limits go into the result; only a dead engine throws.
 */
export async function runBlock(
  parts: EngineParts,
  code: string,
  options: EngineRunOptions,
): Promise<REPLResult> {
  const started = performance.now();
  if (parts.resetReason !== undefined) return resetOutcome(parts, parts.resetReason, started);
  const clock = startClock(parts, options);
  let unawaited: UnawaitedCalls = {};
  try {
    parts.scaffold.beginBlock();
    parts.bridge.open();
    let settled: Settled;
    try {
      // Most blocks settle in their first slice: then nothing is awaited here.
      const evaluated = evaluate(parts, code, clock);
      settled = evaluated instanceof Promise ? await evaluated : evaluated;
    } finally {
      // The block has ended: its host calls are aborted and guest code can start no more.
      unawaited = parts.bridge.close();
    }
    return {
      ...finish(parts, settled, { clock, started }),
      unawaitedCalls: unawaited,
    };
  } catch (error) {
    if (!(error instanceof EngineFault)) throw error;
    return { ...faultResult(parts, error.message, started), unawaitedCalls: unawaited };
  } finally {
    parts.bridge.close();
    endClock(parts);
  }
}

/** Evaluates the block and settles it: synchronously when its first slice settles it. */
function evaluate(parts: EngineParts, code: string, clock: BlockClock): Settled | Promise<Settled> {
  const source = rewriteBlock(code) ?? code;
  const evaluated = clock.slice(() => parts.context.evalCode(source, BLOCK_FILE, EVAL_FLAG_ASYNC));
  const limit = clock.stopped();
  if (evaluated.error) {
    if (limit === undefined) return { kind: 'thrown', error: evaluated.error };
    evaluated.error.dispose();
    return { kind: 'limit', error: limit };
  }
  const promise = evaluated.value;
  let waiting = false;
  try {
    if (limit) return { kind: 'limit', error: limit };
    const started = Date.now();
    const first = settleStep(parts, promise, clock);
    if (first !== 'waiting') return first;
    waiting = true;
    return settleLater(parts, { promise, clock, started }).finally(() => promise.dispose());
  } finally {
    if (!waiting) promise.dispose();
  }
}

/**
 * One step towards settling the block's promise: applies the host results that arrived and pumps
 * the jobs, then tells whether the promise settled, a limit stopped the block, or it must wait
 * for a host call.
 */
function settleStep(
  parts: EngineParts,
  promise: QuickJSHandle,
  clock: BlockClock,
): Settled | 'waiting' {
  const { bridge } = parts;
  clock.slice(() => {
    bridge.applyArrived();
    pumpJobs(parts);
  });
  const limit = clock.stopped();
  if (limit) return { kind: 'limit', error: limit };
  const settled = settledState(parts, promise);
  if (settled) return settled;
  if (bridge.inFlight === 0) return { kind: 'limit', error: limitErrors.deadlock() };
  return 'waiting';
}

/**
 * Waits for host results and takes further steps until the block's promise settles or a limit
 * stops it. Host results that arrive without any I/O (a function that answers at once) settle as
 * microtasks, which could keep the thread's timers and I/O waiting for the whole block: the loop
 * lets them run every `YIELD_EVERY_MS` (counted from the block's first step).
 */
async function settleLater(
  parts: EngineParts,
  { promise, clock, started }: { promise: QuickJSHandle; clock: BlockClock; started: number },
): Promise<Settled> {
  const { bridge, limits } = parts;
  let yielded = started;
  for (;;) {
    const outcome = await bridge.waitForSettle(clock.wallDeadline, clock.signals);
    if (outcome === 'deadline') {
      return { kind: 'limit', error: limitErrors.wall(limits.blockTimeoutMs) };
    }
    if (outcome === 'aborted') return { kind: 'limit', error: limitErrors.aborted() };
    if (Date.now() - yielded > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      yielded = Date.now();
    }
    const step = settleStep(parts, promise, clock);
    if (step !== 'waiting') return step;
  }
}

function settledState({ context }: EngineParts, promise: QuickJSHandle): Settled | undefined {
  const state = context.getPromiseState(promise);
  if (state.type === 'fulfilled') {
    return { kind: 'value', holder: state.notAPromise ? promise.dup() : state.value };
  }
  if (state.type === 'rejected') return { kind: 'thrown', error: state.error };
  return undefined;
}

interface Report {
  error: BlockError | null;
  note: string;
  locals: Record<string, string>;
}

function finish(
  parts: EngineParts,
  settled: Settled,
  { clock, started }: { clock: BlockClock; started: number },
): REPLResult {
  const quick =
    settled.kind === 'value' ? finishInOneCall(parts, settled.holder, clock) : undefined;
  if (quick !== undefined && settled.kind === 'value') settled.holder.dispose();
  const report = quick?.report ?? reportBlock(parts, settled, clock);
  const ended = quick?.ended ?? parts.scaffold.endBlock();
  // `finishBlock` left output open for the next block: leftover jobs must print nowhere.
  if (parts.runtime.hasPendingJob()) parts.scaffold.closeOutput();
  if (!dropLeftoverJobs(parts)) {
    parts.resetReason = 'jobs';
    return resetOutcome(parts, 'jobs', started);
  }
  const restoreNote =
    ended.unrestored.length > 0
      ? `note: could not restore the scaffold name(s) ${ended.unrestored.join(', ')}\n`
      : '';
  const { error, note, locals } = report;
  return {
    stdout: ended.stdout,
    stderr: ended.stderr + (error ? formatBlockError(error) : '') + note + restoreNote,
    locals,
    executionTime: performance.now() - started,
    llmCalls: [],
    finalAnswer: ended.finalAnswer,
    error,
    unawaitedCalls: {},
  };
}

/**
 * The usual end of a block that completed, in one scaffold call under the block's clock (capped
 * at `LOCALS_MS`, as naming the types is); `undefined` when that call was stopped or failed
 * before it took anything, and the step-by-step calls of `reportBlock` and `endBlock` (which
 * handle limits, caps and exhausted memory) finish the block instead.
 */
function finishInOneCall(
  parts: EngineParts,
  holder: QuickJSHandle,
  clock: BlockClock,
): { report: Report; ended: EndedBlock } | undefined {
  if (clock.stopped() !== undefined) return undefined;
  try {
    const { locals, ended } = parts.scaffold.finishBlock(holder, (work) =>
      clock.slice(work, LOCALS_MS),
    );
    return { report: { error: null, note: '', locals }, ended };
  } catch (failure) {
    if (!(failure instanceof EngineFault) || parts.poisonReason !== undefined) throw failure;
    return undefined;
  }
}

/** What the block ended with, its completion value printed and its variables' types. */
function reportBlock(parts: EngineParts, settled: Settled, clock: BlockClock): Report {
  try {
    let error: BlockError | null = null;
    let note = '';
    if (settled.kind === 'limit') error = limitBlockError(settled.error);
    else if (settled.kind === 'thrown') {
      // The thrown value may be an exhausted heap's own error: describing it needs the room the
      // ballast holds back. (QuickJS can corrupt its heap when an allocation fails in the
      // middle of some built-ins, so the scaffold never works with the heap full.)
      parts.scaffold.releaseBallast();
      error = describeThrown(parts, settled.error, clock);
      if (error.code === 'sandbox.out_of_memory') note = recoverFromOutOfMemory(parts);
      else parts.scaffold.holdBallast();
    } else {
      error = printCompletion(parts, settled.holder, clock);
    }
    return { error, note, locals: typesOfLocals(parts, clock) };
  } catch (failure) {
    // QuickJS throws `null` when it cannot even allocate the error object, so an exhausted
    // heap often shows up only here, when the scaffold's own work fails.
    if (!(failure instanceof EngineFault) || parts.poisonReason !== undefined) throw failure;
    const recovered = recoverFromOutOfMemory(parts);
    if (parts.poisonReason !== undefined) throw new EngineFault(parts.poisonReason);
    return { error: undescribedError(), note: recovered, locals: parts.scaffold.locals('trusted') };
  } finally {
    if (settled.kind === 'value') settled.holder.dispose();
  }
}

/** The thrown value as a block error, read under the block's clock. */
function describeThrown(parts: EngineParts, thrown: QuickJSHandle, clock: BlockClock): BlockError {
  try {
    return guestBlockError(parts.scaffold.describe(thrown, clock.slice));
  } catch (failure) {
    if (!(failure instanceof EngineFault)) throw failure;
    const limit = clock.stopped();
    // The scaffold fails to describe an error almost only when memory is exhausted.
    return limit === undefined ? undescribedError() : limitBlockError(limit);
  } finally {
    thrown.dispose();
  }
}

/** Prints the completion value under the block's clock; a limit hit meanwhile is the block's. */
function printCompletion(
  parts: EngineParts,
  holder: QuickJSHandle,
  clock: BlockClock,
): BlockError | null {
  try {
    parts.scaffold.printCompletion(holder, clock.slice);
    return null;
  } catch (failure) {
    const limit = failure instanceof EngineFault ? clock.stopped() : undefined;
    if (limit === undefined) throw failure;
    return limitBlockError(limit);
  }
}

/**
 * Variable types, under the block's clock and at most `LOCALS_MS` of it (a hostile getter must not
 * cost every later block its whole budget); without running guest code once that time is gone.
 */
function typesOfLocals({ scaffold }: EngineParts, clock: BlockClock): Record<string, string> {
  if (clock.stopped() === undefined) {
    try {
      return scaffold.locals({ within: (work) => clock.slice(work, LOCALS_MS) });
    } catch (failure) {
      if (!(failure instanceof EngineFault)) throw failure;
      if (clock.stopped() === undefined && !clock.capped()) throw failure;
    }
  }
  return scaffold.locals('trusted');
}

/**
 * After an out-of-memory error the runtime still works if the garbage is unreachable: remove the
 * globals this block created, then probe with a small allocation. If memory stays full, the
 * engine is poisoned and the caller must create a new sandbox.
 */
function recoverFromOutOfMemory(parts: EngineParts): string {
  try {
    const cleared = parts.scaffold.reclaimMemory();
    return cleared.length > 0
      ? `note: to free memory, variables created by this block were cleared: ${cleared.join(', ')}\n`
      : '';
  } catch {
    parts.poisonReason ??= 'memory stayed exhausted after an out-of-memory error';
    return 'note: memory is still exhausted; this sandbox is poisoned and refuses further blocks\n';
  }
}

function resetOutcome(parts: EngineParts, reason: ResetReason, started: number): REPLResult {
  const error = resetBlockError(reason, { limits: parts.limits, abortGraceMs: 0 });
  return resetResult(error, performance.now() - started);
}

function faultResult(parts: EngineParts, reason: string, started: number): REPLResult {
  parts.poisonReason ??= reason;
  const error: BlockError = {
    name: 'RlmError',
    message: `the engine failed and this sandbox is poisoned (${reason})`,
    code: 'sandbox.poisoned',
  };
  return {
    stdout: '',
    stderr: formatBlockError(error),
    locals: {},
    executionTime: performance.now() - started,
    llmCalls: [],
    finalAnswer: null,
    error,
    unawaitedCalls: {},
  };
}
