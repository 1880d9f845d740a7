import { statSync } from 'node:fs';
import type { RunStore } from '@rlm/memory';
import type { ChatMessage, JsonValue, ReplEnvironment } from '@rlm/protocol';
import type { ToolDefinition } from '../config/tool-definition.js';
import type { ProposedAnswer } from '../dispatch/dispatcher-functions.js';
import type { DispatcherSnapshot } from '../dispatch/dispatcher-snapshot.js';
import type { TaskDispatcher } from '../dispatch/task-dispatcher.js';
import type { InvocationSpec } from '../loop/invocation-spec.js';
import type { RunNode } from '../run/run-node.js';
import { contextsHash, joinContextHashes } from '../trajectory/context-fingerprint.js';
import type { CheckpointData, RecordedTurn } from './checkpoint-data.js';
import { HostCallLog } from './host-call-log.js';

/** A trajectory file's size now (records are written synchronously, so this is exact). */
function fileSize(path: string | undefined): number | null {
  if (path === undefined) return null;
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

/** The loop state a checkpoint saves and a resume restores. */
export interface ResumableState {
  history: ChatMessage[];
  archive: ChatMessage[];
  compactedPrefix: number;
  partial: string | null;
  consecutiveErrors: number;
  /** Times the REPL was reset (`sandbox.reset`) in the turns so far. */
  sandboxResets: number;
  codeEverRan: boolean;
  guardUsed: boolean;
  /** The code of the blocks the latest turn ran. */
  lastCodes: string[];
  /** A coordinator's background tasks, saved with each checkpoint and restored with it. */
  dispatcher: TaskDispatcher | null;
  /** The latest `set_answer`, which a replay of recorded code does not set again. */
  proposed: ProposedAnswer | null;
}

/**
 * Saves a root's state to the run store after each completed turn, and brings a resumed root
 * back to its last checkpoint: state restored, then every recorded block re-executed in a fresh
 * sandbox with host calls answered from the recording (no model calls), then live again.
 */
export class TurnCheckpointer {
  readonly #node: RunNode;
  readonly #store: RunStore;
  readonly #spec: InvocationSpec;
  readonly #log: HostCallLog;
  readonly #turns: RecordedTurn[];
  readonly #contextHash: string;
  /** The latest checkpoint and the task ids it knew, saved again as those tasks finish. */
  #last: { data: CheckpointData; ids: ReadonlySet<string> } | null = null;
  /** Saves in the order they were made, so an older checkpoint never overwrites a newer one. */
  #saving: Promise<void> = Promise.resolve();

  constructor(
    node: RunNode,
    {
      store,
      spec,
      contextHashes,
    }: {
      store: RunStore;
      spec: InvocationSpec;
      /** Each payload's `contextHash`, when the run has them already (hashing a big context is a full pass). */
      contextHashes?: () => readonly string[];
    },
  ) {
    this.#node = node;
    this.#store = store;
    this.#spec = spec;
    this.#turns = [...(spec.resume?.turns ?? [])];
    this.#log = new HostCallLog(this.#turns.flatMap((turn) => turn.calls));
    this.#contextHash =
      spec.resume?.contextHash ??
      (contextHashes === undefined
        ? contextsHash(spec.context, spec.contexts)
        : joinContextHashes(contextHashes()));
  }

  /** The sandbox's functions, recorded (and replayed while resuming). */
  wrap(functions: Record<string, ToolDefinition>): Record<string, ToolDefinition> {
    return this.#log.wrap(functions);
  }

  /** Puts a resumed run's state, budget and id counters back. */
  restore(state: ResumableState): void {
    const saved = this.#spec.resume;
    if (saved === undefined) return;
    state.history = saved.history.map((message) => ({ ...message }));
    state.archive = saved.archive.map((message) => ({ ...message }));
    state.compactedPrefix = saved.compactedPrefix;
    state.partial = saved.partial;
    state.consecutiveErrors = saved.consecutiveErrors;
    state.sandboxResets = saved.sandboxResets ?? 0;
    state.codeEverRan = saved.codeEverRan;
    state.guardUsed = saved.guardUsed;
    this.#node.restoreCounters(saved.counters);
    this.#node.scope.restore({
      usage: saved.usage,
      subcalls: saved.subcalls,
      refusedCalls: saved.refusedCalls,
    });
    state.proposed = saved.proposed ?? null;
    // Finished tasks come back with their results; those that were running start again.
    if (saved.dispatcher !== undefined) state.dispatcher?.restore(saved.dispatcher);
  }

  /**
   * Keeps the latest checkpoint's tasks current: a task that finishes between turns is saved at
   * once, so a crash before the next turn ends does not lose (and re-run) it.
   */
  follow(dispatcher: TaskDispatcher): void {
    dispatcher.onSettled = () => {
      const last = this.#last;
      if (last === null) return;
      const data = {
        ...last.data,
        dispatcher: laterFinished(last.data, dispatcher.snapshot(last.ids)),
      };
      this.#last = { data, ids: last.ids };
      // Saved in the background: a store failure loses only resumability (see `#write`).
      void this.#write(data);
    };
  }

  /** Re-executes the recorded blocks in `sandbox` (silently), then goes live. */
  async replay(sandbox: ReplEnvironment, state: ResumableState): Promise<void> {
    if (this.#spec.resume === undefined) return;
    const signal = this.#node.scope.signal;
    for (const turn of this.#turns) {
      for (const code of turn.codes) await sandbox.execute(code, { signal });
    }
    this.#log.endReplay();
    if (state.archive.length > 0) {
      await sandbox.setVariable(
        'history',
        state.archive.map((message) => ({ ...message })),
      );
    }
  }

  /** The first turn to run: 0, or the one after the checkpoint. */
  get firstIteration(): number {
    const saved = this.#spec.resume;
    return saved === undefined ? 0 : saved.iteration + 1;
  }

  /** Saves the state after `iteration`. A store failure loses only resumability, never the run. */
  async save(state: ResumableState, iteration: number): Promise<void> {
    this.#turns.push({ codes: state.lastCodes, calls: this.#log.take() });
    const data: CheckpointData = {
      version: 1,
      query: this.#spec.query ?? null,
      ...(this.#spec.repl === 'javascript' ? {} : { repl: this.#spec.repl }),
      contextHash: this.#contextHash,
      iteration,
      turns: this.#turns,
      history: state.history,
      archive: state.archive,
      compactedPrefix: state.compactedPrefix,
      partial: state.partial,
      consecutiveErrors: state.consecutiveErrors,
      ...(state.sandboxResets === 0 ? {} : { sandboxResets: state.sandboxResets }),
      codeEverRan: state.codeEverRan,
      guardUsed: state.guardUsed,
      usage: this.#node.scope.usage,
      subcalls: this.#node.scope.subcalls,
      ...(this.#node.scope.refusedCalls === 0
        ? {}
        : { refusedCalls: this.#node.scope.refusedCalls }),
      counters: this.#node.counters,
      trajectoryBytes: fileSize(this.#node.tree.recorder?.path),
      ...(this.#spec.output === undefined ? {} : { output: this.#spec.output.jsonSchema }),
      ...(state.dispatcher === null ? {} : { dispatcher: state.dispatcher.snapshot() }),
      ...(state.proposed === null ? {} : { proposed: { ...state.proposed } }),
    };
    this.#last = { data, ids: new Set(state.dispatcher?.ids() ?? []) };
    await this.#write(data);
  }

  #write(data: CheckpointData): Promise<void> {
    this.#saving = this.#saving.then(() =>
      this.#store
        .saveCheckpoint(this.#spec.runId, data.iteration, data as unknown as JsonValue)
        .then(
          () => undefined,
          () => undefined,
        ),
    );
    return this.#saving;
  }
}

/**
 * A checkpoint's tasks with those that finished since it was saved: added as finished and not
 * yet read. What code read during the turn after the checkpoint is not counted as read, since a
 * resumed run plays that turn again.
 */
function laterFinished(saved: CheckpointData, now: DispatcherSnapshot): DispatcherSnapshot {
  const before = saved.dispatcher ?? { tasks: [], unharvested: [], sinceTurn: [] };
  const earlier = new Map(
    before.tasks.filter((task) => task.result !== null).map((task) => [task.id, task]),
  );
  const fresh = now.tasks
    .filter((task) => task.result !== null && !earlier.has(task.id))
    .map((task) => task.id);
  return {
    tasks: now.tasks.map((task) => earlier.get(task.id) ?? task),
    unharvested: [...before.unharvested, ...fresh],
    sinceTurn: [...before.sinceTurn, ...fresh],
  };
}
