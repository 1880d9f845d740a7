import { createStore, type Scratchpad, type ScratchpadEntry } from '@rlm/memory';
import { emptyUsage, type JsonValue, RlmError } from '@rlm/protocol';
import pLimit, { type LimitFunction } from 'p-limit';
import type { RlmCallOptions, SubCallRunner } from '../loop/sub-call-runner.js';
import { taskModel } from '../loop/system-prompts.js';
import { errorInfo } from '../run/error-info.js';
import type { RunNode } from '../run/run-node.js';
import type { DispatcherSnapshot, SavedTask } from './dispatcher-snapshot.js';
import { type TaskResult, taskKey, taskSummary } from './task-result.js';

/** One background task while it runs. */
interface RunningTask {
  readonly id: string;
  readonly task: string;
  readonly options: RlmCallOptions;
  readonly controller: AbortController;
  readonly done: Promise<TaskResult>;
  result: TaskResult | null;
  /** The full output, kept for checkpoints. */
  output: string | null;
  /**
   * Whether it finished while the run was live: a task cut off by the run's own stop did not
   * finish in a way a resumed run should keep, so a checkpoint saves it as still to run.
   */
  settled: boolean;
}

/** Starts a task's child runs; `onHostCall` hears each host function its code (and its children's) calls. */
export type TaskRunnerFactory = (onHostCall: () => void) => SubCallRunner;

/** Outcome of `await_results`: the finished tasks among the ids, and the ids still running. */
export interface AwaitedResults {
  results: TaskResult[];
  timedOut: string[];
}

const TASK_PREVIEW_CHARS = 80;

function short(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= TASK_PREVIEW_CHARS ? line : `${line.slice(0, TASK_PREVIEW_CHARS)}…`;
}

/**
 * The root's background tasks (`delegate`): each one is a child RLM started through the same path
 * as `rlm_query`, so its budget rolls up into the tree, but it outlives the block (and the turn)
 * that started it. Results are written in full to the scratchpad under `task:<id>`; code sees a
 * bounded summary. Everything still running when the run ends is cancelled by `close()`.
 */
export class TaskDispatcher {
  readonly #node: RunNode;
  readonly #runnerFor: TaskRunnerFactory;
  readonly #limit: LimitFunction;
  readonly #tasks = new Map<string, RunningTask>();
  /** Finished, not yet returned by `stream_results` or `await_results`. */
  #unharvested: TaskResult[] = [];
  /** Finished since the last turn prompt was written. */
  #sinceTurn: TaskResult[] = [];
  #scratchpad: Promise<{ pad: Scratchpad; close: () => Promise<void> }> | undefined;
  readonly #given: Scratchpad | undefined;
  #closing = false;
  /** Scratchpad writes of a restored checkpoint, awaited before anything reads the pad. */
  #restored: Promise<void> = Promise.resolve();
  /** Told when a task settles while the run is live (a checkpoint keeps its result). */
  onSettled: (() => void) | undefined;

  constructor(node: RunNode, runnerFor: TaskRunnerFactory) {
    this.#node = node;
    this.#runnerFor = runnerFor;
    this.#limit = pLimit(node.tree.config.dispatch.maxConcurrency);
    this.#given = node.tree.config.scratchpad;
  }

  /** The id the next task numbered on the host gets (Python's `delegate`): after every known one. */
  nextId(): string {
    return `t${this.#tasks.size + 1}`;
  }

  /** The ids of every task so far, in the order they were delegated. */
  ids(): string[] {
    return [...this.#tasks.keys()];
  }

  /** The scratchpad: the configured one, else an in-memory store opened on first use. */
  #pad(): Promise<{ pad: Scratchpad; close: () => Promise<void> }> {
    if (this.#scratchpad === undefined) {
      const given = this.#given;
      this.#scratchpad =
        given === undefined
          ? createStore({ kind: 'memory' }).then((store) => ({
              pad: store.scratchpad,
              close: () => store.close(),
            }))
          : Promise.resolve({ pad: given, close: async () => undefined });
    }
    return this.#scratchpad;
  }

  /**
   * Starts a task and returns at once. `id` comes from the guest (which must return it
   * synchronously); a repeated or late id is refused with an error string.
   */
  delegate(id: string, task: string, options: RlmCallOptions): string {
    if (this.#tasks.has(id)) return `Error: task id ${id} is already in use`;
    if (this.#closing) return 'Error: the run is ending; no new tasks start';
    this.#start(id, task, options);
    this.#node.emit({ type: 'task-start', taskId: id, task });
    return id;
  }

  #start(id: string, task: string, options: RlmCallOptions): void {
    const controller = new AbortController();
    // Tasks run on the task model unless code names one.
    const own = { ...options, model: options.model ?? taskModel(this.#node.tree.config).id };
    const entry: RunningTask = {
      id,
      task,
      options,
      controller,
      result: null,
      output: null,
      settled: false,
      done: this.#limit(() => this.#run({ id, task, controller }, own)).then(({ result, output }) =>
        this.#finish(entry, result, output),
      ),
    };
    this.#tasks.set(id, entry);
  }

  /** Records a task that could not start (bad arguments) as finished and failed, so code hears of it. */
  reject(id: string, task: string, error: string): string {
    if (this.#tasks.has(id)) return `Error: task id ${id} is already in use`;
    const result: TaskResult = {
      taskId: id,
      task,
      ok: false,
      summary: '',
      error,
      durationMs: 0,
      usage: emptyUsage(),
      toolCalls: 0,
    };
    const entry: RunningTask = {
      id,
      task,
      options: {},
      controller: new AbortController(),
      result: null,
      output: null,
      settled: false,
      done: Promise.resolve(result),
    };
    this.#tasks.set(id, entry);
    this.#node.emit({ type: 'task-start', taskId: id, task });
    this.#finish(entry, result, '');
    return `Error: ${error}`;
  }

  async #run(
    { id, task, controller }: { id: string; task: string; controller: AbortController },
    options: RlmCallOptions,
  ): Promise<{ result: TaskResult; output: string }> {
    const { config, now } = this.#node.tree;
    const startedAt = now();
    const base = { taskId: id, task };
    if (controller.signal.aborted) {
      const result: TaskResult = {
        ...base,
        ok: false,
        summary: '',
        error: errorInfo(controller.signal.reason).message,
        durationMs: 0,
        usage: emptyUsage(),
        toolCalls: 0,
      };
      return { result, output: '' };
    }
    const timeoutMs = config.dispatch.taskTimeoutMs;
    const timer = setTimeout(() => {
      controller.abort(
        new RlmError({
          code: 'executor.cancelled',
          message: `task ${id} timed out after ${timeoutMs} ms`,
          details: {},
        }),
      );
    }, timeoutMs);
    let toolCalls = 0;
    const runner = this.#runnerFor(() => {
      toolCalls += 1;
    });
    try {
      const outcome = await runner.rlm(task, options, {
        signal: controller.signal,
        shareCount: config.dispatch.maxConcurrency,
      });
      const durationMs = now() - startedAt;
      const aborted = controller.signal.aborted;
      const ok = outcome.ok && !aborted;
      const error = ok
        ? null
        : aborted
          ? errorInfo(controller.signal.reason).message
          : outcome.text.replace(/^Error: /, '');
      const summary = taskSummary(ok ? outcome.text : '', {
        taskId: id,
        maxChars: config.dispatch.summaryChars,
      });
      const result: TaskResult = {
        ...base,
        ok,
        summary,
        error,
        durationMs,
        usage: outcome.usage,
        toolCalls,
      };
      await this.#store(result, outcome.text);
      return { result, output: outcome.text };
    } finally {
      clearTimeout(timer);
    }
  }

  async #store(result: TaskResult, output: string): Promise<void> {
    try {
      const { pad } = await this.#pad();
      await pad.set(taskKey(result.taskId), {
        type: 'task-result',
        summary: result.summary,
        raw: { ...result, output },
      });
    } catch {
      // A scratchpad failure loses only the full text; the summary still reaches the model.
    }
  }

  #finish(entry: RunningTask, result: TaskResult, output: string): TaskResult {
    entry.result = result;
    entry.output = output;
    entry.settled = !this.#closing && !this.#node.scope.signal.aborted;
    this.#unharvested.push(result);
    this.#sinceTurn.push(result);
    this.#node.emit({
      type: 'task-end',
      taskId: result.taskId,
      ok: result.ok,
      summary: result.ok ? result.summary : (result.error ?? ''),
      durationMs: result.durationMs,
    });
    if (entry.settled) this.onSettled?.();
    return result;
  }

  /** The tasks finished since the previous call (or since `await_results` returned them). */
  streamResults(): TaskResult[] {
    const results = this.#unharvested;
    this.#unharvested = [];
    return results;
  }

  /**
   * Waits until every id has finished or `timeoutMs` passed; returns what finished (also marked
   * as harvested) and the ids still running. Unknown ids are reported as timed out.
   */
  async awaitResults(
    ids: readonly string[],
    { timeoutMs, signal }: { timeoutMs: number | undefined; signal: AbortSignal },
  ): Promise<AwaitedResults> {
    const waiting = ids.map((id) => this.#tasks.get(id)?.done);
    const all = Promise.all(waiting.map((done) => done?.catch(() => undefined)));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stops: Promise<unknown>[] = [all];
    if (timeoutMs !== undefined) {
      stops.push(new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))));
    }
    let onAbort = (): void => undefined;
    stops.push(
      new Promise<void>((resolve) => {
        onAbort = resolve;
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', onAbort, { once: true });
      }),
    );
    try {
      await Promise.race(stops);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    const results: TaskResult[] = [];
    const timedOut: string[] = [];
    for (const id of ids) {
      const result = this.#tasks.get(id)?.result ?? null;
      if (result === null) timedOut.push(id);
      else results.push(result);
    }
    this.#unharvested = this.#unharvested.filter((result) => !results.includes(result));
    return { results, timedOut };
  }

  /** A scratchpad entry, or `null`. */
  async inspect(key: string): Promise<ScratchpadEntry | null> {
    await this.#restored;
    const { pad } = await this.#pad();
    return (await pad.get(key)) ?? null;
  }

  /** What the turn prompt says about tasks: those running, and those finished since the last turn. */
  turnNote(): string | null {
    const running = [...this.#tasks.values()].filter((entry) => entry.result === null);
    // Listed in the order the tasks were delegated, whatever order they finished in.
    const order = [...this.#tasks.keys()];
    const byOrder = (a: TaskResult, b: TaskResult) =>
      order.indexOf(a.taskId) - order.indexOf(b.taskId);
    const finished = [...this.#sinceTurn].sort(byOrder);
    this.#sinceTurn = [];
    if (running.length === 0 && finished.length === 0 && this.#unharvested.length === 0) {
      return null;
    }
    const lines = ['Background tasks:'];
    if (finished.length > 0) {
      lines.push(
        `- finished since your last turn: ${finished
          .map((result) => `${result.taskId} (${result.ok ? 'ok' : 'failed'})`)
          .join(', ')}`,
      );
    }
    const unread = [...this.#unharvested].sort(byOrder).map((result) => result.taskId);
    if (unread.length > 0) {
      lines.push(`- not read yet (\`await stream_results()\` returns them): ${unread.join(', ')}`);
    }
    if (running.length > 0) {
      lines.push(
        `- still running: ${running.map((entry) => `${entry.id} "${short(entry.task)}"`).join(', ')}`,
      );
    }
    return lines.join('\n');
  }

  /**
   * The tasks for a checkpoint, limited to `only` (the ids known when the checkpoint's turn
   * ended: a later task belongs to a turn a resumed run plays again). A task that has not
   * settled is saved as still to run.
   */
  snapshot(only?: ReadonlySet<string>): DispatcherSnapshot {
    const kept = [...this.#tasks.values()].filter(
      (entry) => only === undefined || only.has(entry.id),
    );
    const done = (entry: RunningTask) => entry.result !== null && entry.settled;
    const doneIds = new Set(kept.filter(done).map((entry) => entry.id));
    return {
      tasks: kept.map(
        (entry): SavedTask => ({
          id: entry.id,
          task: entry.task,
          options: JSON.parse(JSON.stringify(entry.options)) as Record<string, JsonValue>,
          result: done(entry) ? entry.result : null,
          output: done(entry) ? entry.output : null,
        }),
      ),
      unharvested: this.#unharvested.map((r) => r.taskId).filter((id) => doneIds.has(id)),
      sinceTurn: this.#sinceTurn.map((r) => r.taskId).filter((id) => doneIds.has(id)),
    };
  }

  /**
   * Brings back a checkpoint's tasks: finished ones with their results (and their full output
   * in the scratchpad), never run again; unfinished ones started again under their ids.
   */
  restore(snapshot: DispatcherSnapshot): void {
    const byId = new Map<string, TaskResult>();
    const writes: Promise<void>[] = [];
    for (const saved of snapshot.tasks) {
      if (saved.result === null) {
        this.#start(saved.id, saved.task, saved.options as RlmCallOptions);
        this.#node.emit({ type: 'task-start', taskId: saved.id, task: saved.task });
        continue;
      }
      const result = saved.result;
      byId.set(saved.id, result);
      this.#tasks.set(saved.id, {
        id: saved.id,
        task: saved.task,
        options: saved.options as RlmCallOptions,
        controller: new AbortController(),
        result,
        output: saved.output,
        settled: true,
        done: Promise.resolve(result),
      });
      writes.push(this.#store(result, saved.output ?? ''));
    }
    const pick = (ids: readonly string[]) =>
      ids.flatMap((id) => {
        const result = byId.get(id);
        return result === undefined ? [] : [result];
      });
    this.#unharvested = [...pick(snapshot.unharvested), ...this.#unharvested];
    this.#sinceTurn = [...pick(snapshot.sinceTurn), ...this.#sinceTurn];
    this.#restored = Promise.all(writes).then(() => undefined);
  }

  /**
   * Ends the dispatcher with the run: cancels every unfinished task, waits for each to report
   * (a `task-end` event with `ok: false`), and closes the default scratchpad.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const unfinished = [...this.#tasks.values()].filter((entry) => entry.result === null);
    for (const entry of unfinished) {
      entry.controller.abort(
        new RlmError({
          code: 'executor.cancelled',
          message: `task ${entry.id} was cancelled because the run ended`,
          details: {},
        }),
      );
    }
    await Promise.all(unfinished.map((entry) => entry.done.catch(() => undefined)));
    if (this.#given === undefined && this.#scratchpad !== undefined) {
      await this.#scratchpad.then(({ close }) => close()).catch(() => undefined);
    }
  }
}
