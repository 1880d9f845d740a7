import { type ChatMessage, type JsonValue, type ReplEnvironment, RlmError } from '@rlm/protocol';
import type { ResolvedRLMConfig } from '../config/rlm-config.js';
import type { ToolDefinition } from '../config/tool-definition.js';
import type { CompletionOptions } from '../create-rlm.js';
import { DELEGATE_HOST_FUNCTION } from '../dispatch/dispatcher-functions.js';
import { openSandbox } from '../loop/open-sandbox.js';
import type { OutputSchema } from '../output/output-spec.js';
import type { CompletionResult, TypedCompletion } from '../output/typed-completion.js';
import type { SessionBinding } from './session-binding.js';

/**
 * A conversation with one RLM that keeps its REPL between `completion()` calls; answers follow
 * the RLM's configured `output` schema (`TOutput`).
 */
export interface RLMSession<TOutput extends OutputSchema | undefined = undefined> {
  /**
   * Runs the RLM over a new payload in the session's sandbox: the first payload is `context`
   * (`context_0`), the n-th `context_<n-1>`; every earlier conversation is in `history_<i>`
   * (the first also in `history`), and variables defined by earlier runs are still there.
   * Calls made while another is running wait for it.
   */
  completion(
    payload: JsonValue,
    options?: Omit<CompletionOptions, 'output'>,
  ): Promise<CompletionResult<TOutput>>;
  /** Disposes the sandbox; later `completion()` calls reject with `executor.cancelled`. */
  close(): Promise<void>;
}

/** Runs one root invocation bound to a session (`runTree` with the binding). */
export type SessionRun = (input: {
  payload: JsonValue;
  options: Omit<CompletionOptions, 'output'> | undefined;
  binding: SessionBinding;
}) => Promise<TypedCompletion<unknown>>;

function closedError(): RlmError<'executor.cancelled'> {
  return new RlmError({
    code: 'executor.cancelled',
    message: 'The session is closed',
    details: {},
  });
}

/**
 * Creates a session: one sandbox for many runs. Host functions are fixed when the sandbox opens,
 * so each name is a stable forwarder to whichever run is active; between runs a call answers
 * with an error string.
 */
export function createSession(
  config: ResolvedRLMConfig,
  run: SessionRun,
): RLMSession<OutputSchema | undefined> {
  const lifetime = new AbortController();
  let sandbox: Promise<ReplEnvironment> | undefined;
  let active: Record<string, ToolDefinition> | undefined;
  let contexts = 0;
  let histories = 0;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  function forwarders(names: readonly string[]): Record<string, ToolDefinition> {
    return Object.fromEntries(
      names.map((name): [string, ToolDefinition] => [
        name,
        {
          description: name,
          call: async (args, options) =>
            active?.[name] === undefined
              ? `Error: ${name} is not available outside a run`
              : active[name].call(args, options),
        },
      ]),
    );
  }

  function binding(): SessionBinding {
    const contextIndex = contexts;
    const historyCount = histories;
    contexts += 1;
    return {
      contextIndex,
      historyCount,
      async open({ payload, functions, meta }) {
        active = functions;
        if (sandbox === undefined) {
          sandbox = openSandbox(config, {
            context: payload,
            functions: forwarders(Object.keys(functions)),
            dispatcher: Object.hasOwn(functions, DELEGATE_HOST_FUNCTION),
            meta,
            signal: lifetime.signal,
            repl: config.repl,
          });
          return sandbox;
        }
        const ready = await sandbox;
        await ready.setVariable(`context_${contextIndex}`, payload);
        return ready;
      },
      async finish(history: readonly ChatMessage[]) {
        active = undefined;
        histories += 1;
        if (sandbox === undefined) return;
        try {
          const ready = await sandbox;
          const value = history.map((message) => ({ ...message }));
          await ready.setVariable(`history_${historyCount}`, value);
          if (historyCount === 0) await ready.setVariable('history', value);
        } catch {
          // A sandbox that failed to open or broke keeps no history; the next run reports it.
        }
      },
    };
  }

  return {
    completion(payload, options) {
      const next = queue.then(() => {
        if (closed) throw closedError();
        return run({ payload, options, binding: binding() });
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      closed = true;
      await queue;
      lifetime.abort(closedError());
      await sandbox?.then((ready) => ready.dispose()).catch(() => undefined);
    },
  };
}
