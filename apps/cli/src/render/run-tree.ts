import type { RunEvent, RunEventOf, RunStatus } from '@rlm/protocol';

/** One executed (or running) code block. */
export interface BlockNode {
  index: number;
  code: string;
  state: 'running' | 'ok' | 'error';
  stdout: string;
  stderr: string;
  error: string | undefined;
  finalAnswer: string | null;
  executionTime: number | undefined;
}

/** One `llm_query` / `rlm_query` call made from code; `childRunId` links an `rlm` child. */
export interface SubcallNode {
  callId: string;
  kind: 'llm' | 'rlm';
  model: string;
  promptPreview: string;
  responsePreview: string | undefined;
  state: 'running' | 'ok' | 'error';
  durationMs: number | undefined;
  childRunId: string | undefined;
}

/** One turn of a run: the model's response, its blocks and the sub-calls they made. */
export interface IterationNode {
  iteration: number;
  startedAt: number;
  response: string | undefined;
  blocks: BlockNode[];
  subcalls: SubcallNode[];
  durationMs: number | undefined;
}

/** One run of the tree (the root or an `rlm_query` child). */
export interface RunNode {
  runId: string;
  parentRunId: string | null;
  depth: number;
  query: string;
  model: string;
  maxIterations: number;
  startedAt: number;
  iterations: IterationNode[];
  notes: string[];
  answer: { text: string; source: string } | undefined;
  status: RunStatus | undefined;
  durationMs: number | undefined;
}

/**
 * The state of a run tree, rebuilt from its `RunEvent`s in order. The live progress view and
 * `rlm trace` both read it, so what a user sees during a run is what the trace shows later.
 */
export class RunTree {
  readonly runs = new Map<string, RunNode>();
  rootRunId: string | undefined;
  startedAt: number | undefined;
  lastAt: number | undefined;
  inputTokens = 0;
  outputTokens = 0;
  costUsd = 0;
  modelCalls = 0;
  /** Model calls in flight (call id → run id), so the view can say which run waits for the model. */
  readonly pendingCalls = new Map<string, string>();

  /** Applies one event; events of unknown runs are kept by creating the run on the fly. */
  apply(event: RunEvent): void {
    this.startedAt ??= event.at;
    this.lastAt = event.at;
    this.rootRunId ??= event.rootRunId;
    switch (event.type) {
      case 'run-start':
        this.runs.set(event.runId, {
          runId: event.runId,
          parentRunId: event.parentRunId,
          depth: event.depth,
          query: event.query,
          model: event.model,
          maxIterations: event.maxIterations,
          startedAt: event.at,
          iterations: [],
          notes: [],
          answer: undefined,
          status: undefined,
          durationMs: undefined,
        });
        return;
      case 'iteration-start':
        this.run(event).iterations.push({
          iteration: event.iteration,
          startedAt: event.at,
          response: undefined,
          blocks: [],
          subcalls: [],
          durationMs: undefined,
        });
        return;
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
        this.pendingCalls.delete(event.callId);
        this.modelCalls += 1;
        this.inputTokens += inputTokensOf(event.usage);
        this.outputTokens += event.usage?.outputTokens ?? 0;
        this.costUsd += event.costUsd ?? 0;
        if (event.error !== undefined)
          this.run(event).notes.push(`model error: ${event.error.message}`);
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
  get root(): RunNode | undefined {
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
        });
        return;
      case 'block-end': {
        const block = this.turn(event).blocks.find((candidate) => candidate.index === event.index);
        if (block === undefined) return;
        block.state = event.error === null ? 'ok' : 'error';
        block.stdout = event.stdout;
        block.stderr = event.stderr;
        block.error =
          event.error === null ? undefined : `${event.error.name}: ${event.error.message}`;
        block.finalAnswer = event.finalAnswer;
        block.executionTime = event.executionTime;
        return;
      }
      case 'subcall-start':
        this.turn(event).subcalls.push({
          callId: event.callId,
          kind: event.kind,
          model: event.model,
          promptPreview: event.promptPreview,
          responsePreview: undefined,
          state: 'running',
          durationMs: undefined,
          childRunId: event.childRunId,
        });
        return;
      case 'subcall-end': {
        const call = this.findSubcall(event.runId, event.callId);
        if (call === undefined) return;
        call.state = event.ok ? 'ok' : 'error';
        call.responsePreview = event.error?.message ?? event.responsePreview;
        call.durationMs = event.durationMs;
        call.childRunId ??= event.childRunId;
        return;
      }
      case 'final-answer':
        this.run(event).answer = { text: event.answer, source: event.source };
        return;
      case 'limit-hit':
        this.run(event).notes.push(`limit hit: ${event.limit} ${event.used}/${event.max}`);
        return;
      case 'task-start':
        this.run(event).notes.push(`task ${event.taskId} started: ${event.task}`);
        return;
      case 'task-end':
        this.run(event).notes.push(
          `task ${event.taskId} ${event.ok ? 'done' : 'failed'}: ${event.summary}`,
        );
        return;
      case 'compaction-end':
        this.run(event).notes.push(`history compacted (${event.messagesBefore} messages)`);
        return;
      case 'error':
        this.run(event).notes.push(`error ${event.error.code}: ${event.error.message}`);
        return;
      case 'run-end':
        this.endRun(event);
        return;
      default:
        return;
    }
  }

  private endRun(event: RunEventOf<'run-end'>): void {
    const run = this.run(event);
    run.status = event.status;
    run.durationMs = event.durationMs;
    if (run.answer === undefined && event.answer !== null) {
      run.answer = { text: event.answer, source: 'run-end' };
    }
    if (event.runId === this.rootRunId) {
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
  }

  private run(event: RunEvent): RunNode {
    let run = this.runs.get(event.runId);
    if (run === undefined) {
      run = {
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
      };
      this.runs.set(event.runId, run);
    }
    return run;
  }

  private turn(event: RunEvent & { iteration?: number }): IterationNode {
    const run = this.run(event);
    const wanted = event.iteration;
    const found =
      wanted === undefined
        ? run.iterations.at(-1)
        : run.iterations.find((candidate) => candidate.iteration === wanted);
    if (found !== undefined) return found;
    const created: IterationNode = {
      iteration: wanted ?? run.iterations.length,
      startedAt: event.at,
      response: undefined,
      blocks: [],
      subcalls: [],
      durationMs: undefined,
    };
    run.iterations.push(created);
    return created;
  }

  private findSubcall(runId: string, callId: string): SubcallNode | undefined {
    const run = this.runs.get(runId);
    for (const turn of [...(run?.iterations ?? [])].reverse()) {
      const call = turn.subcalls.find((candidate) => candidate.callId === callId);
      if (call !== undefined) return call;
    }
    return undefined;
  }
}

/** Input tokens including cached ones: what the model actually read. */
function inputTokensOf(
  usage: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } | undefined,
): number {
  return usage === undefined
    ? 0
    : usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
