import { createStore, type Scratchpad, type ScratchpadEntry } from '@rlm/memory';
import { emptyUsage, RlmError } from '@rlm/protocol';
import pLimit, { type LimitFunction } from 'p-limit';
import type { RlmCallOptions, SubCallRunner } from '../loop/sub-call-runner.js';
import { errorInfo } from '../run/error-info.js';
import type { RunNode } from '../run/run-node.js';
import { type TaskResult, taskKey, taskSummary } from './task-result.js';

/** One background task while it runs. */
interface RunningTask {
  readonly id: string;
  readonly task: string;
  readonly controller: AbortController;
  readonly done: Promise<TaskResult>;
  result: TaskResult | null;
}

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
  readonly #runner: SubCallRunner;
  readonly #limit: LimitFunction;
  readonly #tasks = new Map<string, RunningTask>();
  /** Finished, not yet returned by `stream_results` or `await_results`. */
  #unharvested: TaskResult[] = [];
  /** Finished since the last turn prompt was written. */
  #sinceTurn: TaskResult[] = [];
  #scratchpad: Promise<{ pad: Scratchpad; close: () => Promise<void> }> | undefined;
  readonly #given: Scratchpad | undefined;
  #closing = false;

  constructor(node: RunNode, runner: SubCallRunner) {
    this.#node = node;
    this.#runner = runner;
    this.#limit = pLimit(node.tree.config.dispatch.maxConcurrency);
    this.#given = node.tree.config.scratchpad;
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
    const controller = new AbortController();
    const entry: RunningTask = {
      id,
      task,
      controller,
      result: null,
      done: this.#limit(() => this.#run({ id, task, controller }, options)).then((result) =>
        this.#finish(entry, result),
      ),
    };
    this.#tasks.set(id, entry);
    this.#node.emit({ type: 'task-start', taskId: id, task });
    return id;
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
    };
    const entry: RunningTask = {
      id,
      task,
      controller: new AbortController(),
      result: null,
      done: Promise.resolve(result),
    };
    this.#tasks.set(id, entry);
    this.#node.emit({ type: 'task-start', taskId: id, task });
    this.#finish(entry, result);
    return `Error: ${error}`;
  }

  async #run(
    { id, task, controller }: { id: string; task: string; controller: AbortController },
    options: RlmCallOptions,
  ): Promise<TaskResult> {
    const { config, now } = this.#node.tree;
    const startedAt = now();
    const base = { taskId: id, task };
    if (controller.signal.aborted) {
      return {
        ...base,
        ok: false,
        summary: '',
        error: errorInfo(controller.signal.reason).message,
        durationMs: 0,
        usage: emptyUsage(),
      };
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
    try {
      const outcome = await this.#runner.rlm(task, options, {
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
      const result: TaskResult = { ...base, ok, summary, error, durationMs, usage: outcome.usage };
      await this.#store(result, outcome.text);
      return result;
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

  #finish(entry: RunningTask, result: TaskResult): TaskResult {
    entry.result = result;
    this.#unharvested.push(result);
    this.#sinceTurn.push(result);
    this.#node.emit({
      type: 'task-end',
      taskId: result.taskId,
      ok: result.ok,
      summary: result.ok ? result.summary : (result.error ?? ''),
      durationMs: result.durationMs,
    });
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
