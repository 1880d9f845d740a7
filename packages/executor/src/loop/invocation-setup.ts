import type { JsonValue, ReplEnvironment } from '@rlm/protocol';
import type { ProposedAnswer } from '../dispatch/dispatcher-functions.js';
import { TaskDispatcher } from '../dispatch/task-dispatcher.js';
import { type ResumableState, TurnCheckpointer } from '../resume/turn-checkpointer.js';
import type { RunNode } from '../run/run-node.js';
import type { InvocationSpec, Invoke } from './invocation-spec.js';
import { openSandbox, sandboxFunctions } from './open-sandbox.js';
import { subCallRunner } from './sub-call-runner.js';
import { dispatcherEnabled } from './system-prompts.js';

/** The frozen `__rlm` metadata code sees at `iteration`. */
export function invocationMeta(
  node: RunNode,
  spec: InvocationSpec,
  iteration: number,
): Record<string, JsonValue> {
  const remaining = node.scope.remaining();
  return {
    depth: spec.depth,
    maxDepth: node.tree.config.maxDepth,
    iteration,
    maxIterations: spec.maxIterations,
    runId: spec.runId,
    parentRunId: spec.parentRunId,
    budget: { ...remaining },
  };
}

/** The loop state an invocation's setup fills in. */
export interface SetupState extends ResumableState {
  /** Turns this invocation has run (its children get a share of those left). */
  iterations: number;
  dispatcher: TaskDispatcher | null;
  proposed: ProposedAnswer | null;
}

/**
 * Starts an invocation's machinery: the dispatcher (a coordinator root), the checkpointer (a
 * root with a run store, restoring a resumed run's state) and the sandbox with its functions —
 * its own, or the session's. The sandbox is returned unawaited: it starts while the first model
 * call is in flight, so creating it (a worker, a WASM module, the context copied in) costs no
 * wall time whenever the model is slower.
 */
export function setUpInvocation(
  node: RunNode,
  {
    spec,
    state,
    invoke,
    contextHashes,
  }: {
    spec: InvocationSpec;
    state: SetupState;
    invoke: Invoke;
    /** Each payload's hash, computed once per run and shared with the `run-start` record. */
    contextHashes?: () => readonly string[];
  },
): { sandbox: Promise<ReplEnvironment>; checkpointer: TurnCheckpointer | null } {
  // Children report their host calls to whoever counts this invocation's (a background task).
  const runnerWith = (onHostCall: (() => void) | undefined) =>
    subCallRunner(
      node,
      onHostCall === undefined ? invoke : (child) => invoke({ ...child, onHostCall }),
      {
        ownTools: spec.toolNames,
        repl: spec.repl,
        iterationsLeft: () => Math.max(0, spec.maxIterations - state.iterations),
      },
    );
  const runner = runnerWith(spec.onHostCall);
  const { config } = node.tree;
  if (spec.depth === 0 && dispatcherEnabled(config)) {
    state.dispatcher = new TaskDispatcher(node, runnerWith);
  }
  const store = config.runStore;
  // Shared session sandboxes cannot be rebuilt from a recording.
  const checkpointer =
    store !== undefined && spec.depth === 0 && spec.session === undefined
      ? new TurnCheckpointer(node, {
          store,
          spec,
          ...(contextHashes === undefined ? {} : { contextHashes }),
        })
      : null;
  checkpointer?.restore(state);
  if (state.dispatcher !== null) checkpointer?.follow(state.dispatcher);
  const live = sandboxFunctions(node, {
    spec,
    runner,
    dispatcher: state.dispatcher,
    onAnswer: (answer) => {
      state.proposed = answer;
    },
  });
  const functions = checkpointer?.wrap(live) ?? live;
  const meta: Record<string, JsonValue> = invocationMeta(node, spec, 0);
  const sandbox =
    spec.session === undefined
      ? openSandbox(config, {
          context: spec.context,
          contexts: spec.contexts,
          functions,
          dispatcher: state.dispatcher !== null,
          meta,
          signal: node.scope.signal,
          repl: spec.repl,
        })
      : spec.session.open({ payload: spec.context, functions, meta });
  return { sandbox, checkpointer };
}
