import type { RunStatus } from '@rlm/protocol';

/** One executed (or running) code block of a turn. */
export interface TraceBlock {
  index: number;
  code: string;
  state: 'running' | 'ok' | 'error';
  stdout: string;
  stderr: string;
  /** `Name: message` of the block's error, if it threw. */
  error: string | undefined;
  finalAnswer: string | null;
  executionTime: number | undefined;
  /** The lines of the turn's response between the block's fences, when recorded. */
  lines?: { start: number; end: number } | undefined;
}

/** One `llm_query` / `rlm_query` call made from code; `childRunId` links an `rlm` child run. */
export interface TraceSubcall {
  callId: string;
  kind: 'llm' | 'rlm';
  model: string;
  promptPreview: string;
  responsePreview: string | undefined;
  state: 'running' | 'ok' | 'error';
  durationMs: number | undefined;
  childRunId: string | undefined;
  /** Epoch ms of its start. */
  startedAt: number;
  /** The model call an `llm_query` made (same call id); an `rlm` child's usage is its run's. */
  usage: TraceUsage;
  /** Set when the sub-call cache answered the call: it cost nothing, another run paid. */
  cache?: TraceCacheHit | undefined;
  /** Set on a child that failed and ran again on a stronger model (the next sub-call). */
  escalatedTo?: TraceEscalation | undefined;
  /** Set on the child that ran again on a stronger model after a failed one. */
  escalatedFrom?: TraceEscalation | undefined;
}

/** A sub-call the cache answered: who paid for the stored answer and what it saved. */
export interface TraceCacheHit {
  paidByRunId: string;
  savedCostUsd: number;
  savedTokens: number;
}

/** A failed child run again on the next model of the escalation ladder. */
export interface TraceEscalation {
  fromModel: string;
  toModel: string;
  /** `errors`: its code failed turns in a row; `no-answer`: its turns ran out without an answer. */
  reason: 'errors' | 'no-answer';
  /** With `errors`: how many turns in a row failed (absent in older trajectories). */
  consecutiveErrors?: number | undefined;
  attempt: number;
  /** The failed child's run and the new child's. */
  fromRunId: string;
  toRunId: string;
}

/** Tokens and cost of the model calls made during one turn (its own and its `llm_query` calls). */
export interface TraceUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** One turn of a run: the model's response, its blocks, the sub-calls they made and their usage. */
export interface TraceTurn {
  iteration: number;
  startedAt: number;
  response: string | undefined;
  blocks: TraceBlock[];
  subcalls: TraceSubcall[];
  usage: TraceUsage;
  durationMs: number | undefined;
}

/** One run of the tree (the root or an `rlm_query` child). */
export interface TraceRun {
  runId: string;
  parentRunId: string | null;
  depth: number;
  query: string;
  model: string;
  maxIterations: number;
  startedAt: number;
  iterations: TraceTurn[];
  notes: string[];
  answer: { text: string; source: string } | undefined;
  status: RunStatus | undefined;
  durationMs: number | undefined;
  /** The run's own model calls (its turns and its `llm_query` calls), not its children's. */
  usage: TraceUsage;
}
