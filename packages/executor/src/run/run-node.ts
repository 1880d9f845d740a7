import { type Context, ROOT_CONTEXT } from '@opentelemetry/api';
import {
  capRunEvent,
  MAX_RUN_EVENT_CHARS,
  RUN_EVENT_VERSION,
  type RunEvent,
  type SubCallRecord,
} from '@rlm/protocol';
import type { BudgetScope } from './budget-scope.js';
import { fitsAsJson, jsonBound } from './json-size-bound.js';
import { NodeSpans } from './run-tracing.js';
import type { RunTree } from './run-tree.js';

type BaseKey = 'v' | 'runId' | 'parentRunId' | 'rootRunId' | 'depth' | 'at';
/** An event without the fields its run fills in. */
export type RunEventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, BaseKey>
    : never
  : never;

/** Ids and budget scope of a new node. */
export interface RunNodeOptions {
  runId: string;
  parentRunId: string | null;
  depth: number;
  scope: BudgetScope;
  /** Where this invocation's span goes: the caller's context at the root, the sub-call's for a child. */
  traceContext?: Context | undefined;
}

/**
 * One invocation in the tree: its ids, budget scope, and counters that make call and child ids
 * deterministic (`<runId>:<n>` and `<runId>.<n>`), which is what lets replay match a recorded
 * call to a live one even when calls ran concurrently.
 */
export class RunNode {
  readonly tree: RunTree;
  readonly runId: string;
  readonly parentRunId: string | null;
  readonly depth: number;
  readonly scope: BudgetScope;
  /** The invocation's open spans. */
  readonly spans: NodeSpans;
  #calls = 0;
  #children = 0;
  #blockCalls: SubCallRecord[] | undefined;
  /** A bound of the JSON of the fields `emit` adds to every event (ids, depth, a time). */
  readonly #baseChars: number;

  constructor(tree: RunTree, { runId, parentRunId, depth, scope, traceContext }: RunNodeOptions) {
    this.tree = tree;
    this.spans = new NodeSpans(traceContext ?? ROOT_CONTEXT);
    this.runId = runId;
    this.parentRunId = parentRunId;
    this.depth = depth;
    this.scope = scope;
    this.#baseChars = jsonBound(
      { v: RUN_EVENT_VERSION, runId, parentRunId, rootRunId: tree.rootRunId, depth, at: 0 },
      Number.POSITIVE_INFINITY,
    );
  }

  /** Emits an event, cut to `MAX_RUN_EVENT_CHARS` of JSON so no listener or record gets more. */
  emit(body: RunEventBody): void {
    const whole = {
      v: RUN_EVENT_VERSION,
      runId: this.runId,
      parentRunId: this.parentRunId,
      rootRunId: this.tree.rootRunId,
      depth: this.depth,
      at: this.tree.now(),
      ...body,
    } as RunEvent;
    // Nearly every event is far below the cap: a bound settles that without serializing it (an
    // event a turn would otherwise be turned into JSON only to be measured). The event's JSON is
    // at most its added fields' plus its body's, and the first is the same for every event of the
    // node, so only the body is walked. A bound that says "maybe too long" leaves it to
    // `capRunEvent`, which returns the event itself when it fits.
    const fits = fitsAsJson(body, MAX_RUN_EVENT_CHARS - this.#baseChars);
    const event = fits ? whole : capRunEvent(whole);
    this.tree.recorder?.event(event);
    this.tree.bus.emit(event);
  }

  /** Id counters, saved in checkpoints so a resumed run never reuses an id. */
  get counters(): { calls: number; children: number } {
    return { calls: this.#calls, children: this.#children };
  }

  /** Continues the id sequences of an interrupted run. */
  restoreCounters({ calls, children }: { calls: number; children: number }): void {
    this.#calls = calls;
    this.#children = children;
  }

  nextCallId(): string {
    this.#calls += 1;
    return `${this.runId}:${this.#calls}`;
  }

  nextChildRunId(): string {
    this.#children += 1;
    return `${this.runId}.${this.#children}`;
  }

  /** Starts collecting the sub-calls of the block about to run. */
  beginBlock(): void {
    this.#blockCalls = [];
  }

  /** The sub-calls made while the block ran. */
  endBlock(): SubCallRecord[] {
    const calls = this.#blockCalls ?? [];
    this.#blockCalls = undefined;
    return calls;
  }

  recordSubCall(record: SubCallRecord): void {
    this.#blockCalls?.push(record);
  }
}
