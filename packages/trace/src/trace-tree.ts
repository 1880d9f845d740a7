import type { RunEvent, RunEventOf } from '@rlm/protocol';
import type {
  TraceEscalation,
  TraceRun,
  TraceSubcall,
  TraceTurn,
  TraceUsage,
} from './trace-nodes.js';

export type {
  TraceBlock,
  TraceCacheHit,
  TraceEscalation,
  TraceRun,
  TraceSubcall,
  TraceTurn,
  TraceUsage,
} from './trace-nodes.js';

/**
 * The state of a run tree, rebuilt from its `RunEvent`s in order. It is a pure function of the
 * events (no clock, no I/O), so the CLI's live view, `rlm trace` and the server's run page all
 * show the same tree for the same events, whether the run is still going or long finished.
 *
 * @example
 * const tree = new TraceTree();
 * for (const event of events) tree.apply(event);
 * const html = renderTraceHtml(tree, { title: `Run ${tree.rootRunId}` });
 */
export class TraceTree {
  /** Every run seen, by id, in the order they started. */
  readonly runs = new Map<string, TraceRun>();
  rootRunId: string | undefined;
  /** Epoch ms of the first and the latest event. */
  startedAt: number | undefined;
  lastAt: number | undefined;
  /** Tree-wide totals: running sums while the run goes, the root's exact summary once it ended. */
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;
  modelCalls = 0;
  /** Sub-calls the cache answered, and what they would have cost and used. */
  cacheHits = 0;
  savedCostUsd = 0;
  savedTokens = 0;
  /** Failed children run again on a stronger model. */
  escalations = 0;
  /** Escalations whose new child's sub-call has not started yet, by its run id. */
  readonly #pendingEscalations = new Map<string, TraceEscalation>();
  /** Model calls in flight (call id → run id), so a view can say which run waits for the model. */
  readonly pendingCalls = new Map<string, string>();
  /**
   * Each run's sub-calls by call id, kept beside its turn list (a run restarted without its turns
   * gets a new list, and so a new index): a sub-call's end finds its start at once instead of by
   * a scan of every earlier sub-call (quadratic: 18,300 sub-calls took seconds).
   */
  readonly #subcallIndex = new WeakMap<TraceTurn[], Map<string, IndexedSubcall>>();

  /** Applies one event; events of unknown runs are kept by creating the run on the fly. */
  apply(event: RunEvent): void {
    this.startedAt ??= event.at;
    this.lastAt = event.at;
    this.rootRunId ??= event.rootRunId;
    switch (event.type) {
      case 'run-start': {
        // Events of the run seen before its start (a view fed mid-stream) are kept.
        const known = this.runs.get(event.runId);
        this.runs.set(event.runId, {
          ...emptyRun(event),
          ...(known === undefined
            ? {}
            : { iterations: known.iterations, notes: known.notes, usage: known.usage }),
          query: event.query,
          model: event.model,
          maxIterations: event.maxIterations,
        });
        return;
      }
      case 'run-resume':
        this.resumeRun(event);
        return;
      case 'iteration-start': {
        const run = this.run(event);
        if (run.iterations.some((turn) => turn.iteration === event.iteration)) {
          run.notes.push(`turn ${event.iteration + 1} was cut off by a stop and ran again`);
        }
        run.iterations.push(emptyTurn(event.iteration, event.at));
        return;
      }
      case 'iteration-end': {
        const turn = this.turn(event);
        turn.response = event.response;
        turn.durationMs = event.durationMs;
        return;
      }
      case 'model-call-start':
        this.pendingCalls.set(event.callId, event.runId);
        return;
      case 'model-call-end':
        this.endModelCall(event);
        return;
      default:
        this.applyDetail(event);
    }
  }

  /** Whether `runId` is waiting for a model response right now. */
  isWaiting(runId: string): boolean {
    for (const waiting of this.pendingCalls.values()) if (waiting === runId) return true;
    return false;
  }

  /** The root run, once it has started. */
  get root(): TraceRun | undefined {
    return this.rootRunId === undefined ? undefined : this.runs.get(this.rootRunId);
  }

  private applyDetail(event: RunEvent): void {
    switch (event.type) {
      case 'block-start':
        this.turn(event).blocks.push({
          index: event.index,
          code: event.code,
          state: 'running',
          stdout: '',
          stderr: '',
          error: undefined,
          finalAnswer: null,
          executionTime: undefined,
          ...(event.startLine === undefined || event.endLine === undefined
            ? {}
            : { lines: { start: event.startLine, end: event.endLine } }),
        });
        return;
      case 'block-end':
        this.endBlock(event);
        return;
      case 'subcall-start': {
        const turn = this.turn(event);
        const call: TraceSubcall = {
          callId: event.callId,
          kind: event.kind,
          model: event.model,
          promptPreview: event.promptPreview,
          responsePreview: undefined,
          state: 'running',
          durationMs: undefined,
          childRunId: event.childRunId,
          startedAt: event.at,
          usage: emptyUsage(),
        };
        const from =
          event.childRunId === undefined
            ? undefined
            : this.#pendingEscalations.get(event.childRunId);
        if (from !== undefined && event.childRunId !== undefined) {
          call.escalatedFrom = from;
          this.#pendingEscalations.delete(event.childRunId);
        }
        turn.subcalls.push(call);
        this.indexSubcall(this.run(event).iterations, turn, call);
        return;
      }
      case 'subcall-end':
        this.endSubcall(event);
        return;
      case 'escalation':
        this.escalate(event);
        return;
      case 'final-answer':
        this.run(event).answer = { text: event.answer, source: event.source };
        return;
      case 'run-end':
        this.endRun(event);
        return;
      default: {
        const note = noteOf(event);
        if (note !== undefined) this.run(event).notes.push(note);
      }
    }
  }

  /** A run going on after a stop keeps its turns; a turn the stop cut off shows twice. */
  private resumeRun(event: RunEventOf<'run-resume'>): void {
    const run = this.run(event);
    run.notes.push(
      event.fromIteration === 0
        ? 'stopped before its first checkpoint; started again from turn 1'
        : `resumed from its checkpoint after turn ${event.fromIteration}`,
    );
    if (run.model !== '' && run.model !== event.model) {
      run.notes.push(`model after the resume: ${event.model}`);
    }
    run.model = event.model;
    // The whole tree stopped: calls in flight then never end, they were lost with it.
    this.pendingCalls.clear();
  }

  private endModelCall(event: RunEventOf<'model-call-end'>): void {
    this.pendingCalls.delete(event.callId);
    const input = inputTokensOf(event.usage);
    const output = event.usage?.outputTokens ?? 0;
    const cost = event.costUsd ?? 0;
    this.modelCalls += 1;
    this.inputTokens += input;
    this.outputTokens += output;
    this.costUsd += cost;
    const run = this.run(event);
    const spent = { modelCalls: 1, inputTokens: input, outputTokens: output, costUsd: cost };
    addUsage(run.usage, spent);
    // Model calls carry no turn number; they belong to the turn the run is in (the last one).
    const usage = run.iterations.at(-1)?.usage;
    if (usage !== undefined) addUsage(usage, spent);
    // An llm_query's model call has the sub-call's id: the sub-call's own cost.
    const call = this.findSubcall(event.runId, event.callId);
    if (call !== undefined) addUsage(call.usage, spent);
    if (event.cache !== undefined) {
      this.cacheHits += 1;
      this.savedCostUsd += event.cache.savedCostUsd;
      this.savedTokens += event.cache.savedTokens;
      if (call !== undefined) {
        call.cache = {
          paidByRunId: event.cache.paidByRunId,
          savedCostUsd: event.cache.savedCostUsd,
          savedTokens: event.cache.savedTokens,
        };
      }
    }
    if (event.error !== undefined) run.notes.push(`model error: ${event.error.message}`);
  }

  /** Marks the failed child's sub-call, and remembers the mark for the new child's. */
  private escalate(event: RunEventOf<'escalation'>): void {
    this.escalations += 1;
    const escalation: TraceEscalation = {
      fromModel: event.fromModel,
      toModel: event.toModel,
      reason: event.reason,
      ...(event.consecutiveErrors === undefined
        ? {}
        : { consecutiveErrors: event.consecutiveErrors }),
      attempt: event.attempt,
      fromRunId: event.childRunId,
      toRunId: event.toChildRunId,
    };
    const failed = this.findSubcall(event.runId, event.callId);
    if (failed !== undefined) failed.escalatedTo = escalation;
    this.#pendingEscalations.set(event.toChildRunId, escalation);
  }

  private endBlock(event: RunEventOf<'block-end'>): void {
    const block = this.turn(event).blocks.find((candidate) => candidate.index === event.index);
    if (block === undefined) return;
    block.state = event.error === null ? 'ok' : 'error';
    block.stdout = event.stdout;
    block.stderr = event.stderr;
    block.error = event.error === null ? undefined : `${event.error.name}: ${event.error.message}`;
    block.finalAnswer = event.finalAnswer;
    block.executionTime = event.executionTime;
  }

  private endSubcall(event: RunEventOf<'subcall-end'>): void {
    const call = this.findSubcall(event.runId, event.callId);
    if (call === undefined) return;
    call.state = event.ok ? 'ok' : 'error';
    call.responsePreview = event.error?.message ?? event.responsePreview;
    call.durationMs = event.durationMs;
    call.childRunId ??= event.childRunId;
  }

  private endRun(event: RunEventOf<'run-end'>): void {
    const run = this.run(event);
    run.status = event.status;
    run.durationMs = event.durationMs;
    if (run.answer === undefined && event.answer !== null) {
      run.answer = { text: event.answer, source: 'run-end' };
    }
    if (event.runId !== this.rootRunId) return;
    // The root's summary is tree-wide and exact; prefer it to the running sums.
    let input = 0;
    let output = 0;
    let cost = 0;
    for (const usage of Object.values(event.usage.models)) {
      input += inputTokensOf(usage);
      output += usage.outputTokens;
      cost += usage.costUsd;
    }
    if (input + output > 0) {
      this.inputTokens = input;
      this.outputTokens = output;
      this.costUsd = cost;
    }
  }

  private run(event: RunEvent): TraceRun {
    let run = this.runs.get(event.runId);
    if (run === undefined) {
      run = emptyRun(event);
      this.runs.set(event.runId, run);
    }
    return run;
  }

  private turn(event: RunEvent & { iteration?: number }): TraceTurn {
    const run = this.run(event);
    const wanted = event.iteration;
    const found = wanted === undefined ? run.iterations.at(-1) : lastTurn(run.iterations, wanted);
    if (found !== undefined) return found;
    const created = emptyTurn(wanted ?? run.iterations.length, event.at);
    run.iterations.push(created);
    return created;
  }

  /**
   * Indexes a sub-call as `findSubcall` would find it: the one in the latest turn, the first of a
   * turn that has the id twice.
   */
  private indexSubcall(turns: TraceTurn[], turn: TraceTurn, call: TraceSubcall): void {
    let index = this.#subcallIndex.get(turns);
    if (index === undefined) {
      index = new Map();
      this.#subcallIndex.set(turns, index);
    }
    const known = index.get(call.callId);
    if (known !== undefined && turns.indexOf(known.turn) >= turns.indexOf(turn)) return;
    index.set(call.callId, { turn, call });
  }

  private findSubcall(runId: string, callId: string): TraceSubcall | undefined {
    const run = this.runs.get(runId);
    const indexed =
      run === undefined ? undefined : this.#subcallIndex.get(run.iterations)?.get(callId);
    if (indexed !== undefined) return indexed.call;
    // Not indexed (a sub-call a reader added to the public lists itself): search them.
    for (const turn of [...(run?.iterations ?? [])].reverse()) {
      const call = turn.subcalls.find((candidate) => candidate.callId === callId);
      if (call !== undefined) return call;
    }
    return undefined;
  }
}

/** The one-line note an event leaves on its run, for events that are not part of a turn. */
function noteOf(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'limit-hit':
      return `limit hit: ${event.limit} ${event.used}/${event.max}`;
    case 'task-start':
      return `task ${event.taskId} started: ${event.task}`;
    case 'task-end':
      return `task ${event.taskId} ${event.ok ? 'done' : 'failed'}: ${event.summary}`;
    case 'compaction-end':
      return `history compacted (${event.messagesBefore} messages)`;
    case 'error':
      return `error ${event.error.code}: ${event.error.message}`;
    default:
      return undefined;
  }
}

function emptyRun(event: RunEvent): TraceRun {
  return {
    runId: event.runId,
    parentRunId: event.parentRunId,
    depth: event.depth,
    query: '',
    model: '',
    maxIterations: 0,
    startedAt: event.at,
    iterations: [],
    notes: [],
    answer: undefined,
    status: undefined,
    durationMs: undefined,
    usage: emptyUsage(),
  };
}

function emptyUsage(): TraceUsage {
  return { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

function addUsage(into: TraceUsage, add: TraceUsage): void {
  into.modelCalls += add.modelCalls;
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.costUsd += add.costUsd;
}

function emptyTurn(iteration: number, at: number): TraceTurn {
  return {
    iteration,
    startedAt: at,
    response: undefined,
    blocks: [],
    subcalls: [],
    usage: emptyUsage(),
    durationMs: undefined,
  };
}

/** Input tokens including cached ones: what the model actually read. */
function inputTokensOf(
  usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } | undefined,
): number {
  return usage === undefined
    ? 0
    : usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** The latest turn with this number: a resumed run repeats the turn a stop cut off. */
/** A sub-call and the turn that holds it. */
interface IndexedSubcall {
  turn: TraceTurn;
  call: TraceSubcall;
}

function lastTurn(turns: readonly TraceTurn[], iteration: number): TraceTurn | undefined {
  for (let index = turns.length - 1; index >= 0; index--) {
    if (turns[index]?.iteration === iteration) return turns[index];
  }
  return undefined;
}
