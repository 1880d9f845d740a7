import type { JsonValue, ReplLanguage } from '@rlm/protocol';
import { z } from 'zod';
import type { ToolDefinition } from '../config/tool-definition.js';
import { camelCaseKeys } from '../loop/camel-case-keys.js';
import type { TaskDispatcher } from './task-dispatcher.js';

/** The host function behind the guest's synchronous `delegate` (see `delegateSetup`). */
export const DELEGATE_HOST_FUNCTION = '__rlm_delegate';

/**
 * Guest code run when a dispatcher sandbox opens (and again after its REPL was reset). Host
 * functions are asynchronous in the sandbox, but `delegate` must hand back its id at once (code
 * writes `[delegate(a), delegate(b)]`), so the guest numbers tasks itself, after the `started`
 * ones, and fires the host call without waiting for it.
 */
export function delegateSetup(started = 0): string {
  return `var delegate = (function (start) {
  var count = ${started};
  return function delegate(task, options) {
    count += 1;
    var id = 't' + count;
    start(id, typeof task === 'string' ? task : String(task), options === undefined ? null : options);
    return id;
  };
})(${DELEGATE_HOST_FUNCTION});
var delegate_batch = function delegate_batch(tasks) {
  if (!Array.isArray(tasks)) tasks = [tasks];
  return tasks.map(function (item) {
    if (item !== null && typeof item === 'object') {
      return delegate(typeof item.task === 'string' ? item.task : '', item);
    }
    return delegate(item);
  });
};`;
}

const delegateArgsSchema = z.tuple([
  z.string(),
  z.string(),
  z
    .preprocess(
      camelCaseKeys,
      z
        .object({
          context: z.custom<JsonValue>(() => true).optional(),
          systemPrompt: z.string().optional(),
          model: z.string().optional(),
          tools: z.array(z.string()).optional(),
        })
        .nullish(),
    )
    .optional(),
]);

const awaitArgsSchema = z.tuple([
  z.union([z.array(z.string()), z.string()]),
  z
    .preprocess(
      camelCaseKeys,
      z.object({ timeoutMs: z.number().nonnegative().optional() }).nullish(),
    )
    .optional(),
]);

const setAnswerArgsSchema = z.tuple([
  z.custom<JsonValue>((value) => value !== undefined && value !== null),
  z
    .object({
      confidence: z.number().min(0).max(1).optional(),
      ready: z.boolean().optional(),
    })
    .nullish(),
]);

/** The answer the root proposed with `set_answer`. */
export interface ProposedAnswer {
  content: string;
  /** 0–1, when given. */
  confidence: number | null;
  /**
   * `true`: the answer, ending the run after this turn; `false`: a draft that never ends it;
   * `null` (not given): it ends the run only when its confidence reaches the configured threshold.
   */
  ready: boolean | null;
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined
    ? ''
    : ` (argument ${issue.path.map(String).join('.')}: ${issue.message})`;
}

/**
 * Starts a background task under `id` (`args` are `[id, task, options?]`); bad arguments record a
 * failed task, so code hears of it through the results. `text` is the dispatcher's reply (the id,
 * or an `"Error: …"`); `recorded` says whether a task (started or failed) now has the id.
 */
function startTask(
  dispatcher: TaskDispatcher,
  args: JsonValue[],
): { text: string; recorded: boolean } {
  const id = typeof args[0] === 'string' ? args[0] : '';
  const task = typeof args[1] === 'string' ? args[1] : '';
  const parsed = delegateArgsSchema.safeParse(args);
  if (!parsed.success || task.trim() === '') {
    const why = parsed.success
      ? ' (argument 0: the task must not be empty)'
      : issueText(parsed.error);
    const text = dispatcher.reject(
      id,
      task,
      `delegate expects (task: string, { context, systemPrompt, model, tools }?)${why}`,
    );
    return { text, recorded: true };
  }
  const [, , options] = parsed.data;
  const text = dispatcher.delegate(id, task, options ?? {});
  return { text, recorded: text === id };
}

/**
 * How code starts a background task. JavaScript host calls are asynchronous, so the guest's own
 * `delegate` (see `DELEGATE_SETUP`) numbers tasks and calls this without waiting. A Python host
 * call blocks until it returns, and starting a task returns at once, so there `delegate` is the
 * host function itself and the host numbers the tasks.
 */
function delegateFunction(
  dispatcher: TaskDispatcher,
  repl: ReplLanguage,
): Record<string, ToolDefinition> {
  if (repl === 'javascript') {
    return {
      [DELEGATE_HOST_FUNCTION]: {
        description: 'internal: starts a background task for delegate()',
        call: async (args) => startTask(dispatcher, args).text,
      },
    };
  }
  return {
    delegate: {
      description:
        'delegate(task, context=…, system_prompt=…, model=…, tools=[…]) → task id: starts a background task.',
      async call(args) {
        return startNumbered(dispatcher, args);
      },
    },
    delegate_batch: {
      description:
        "delegate_batch(tasks) → task ids: starts one background task per item (a string, or a dict with task and delegate's options).",
      async call(args) {
        const items = Array.isArray(args[0]) ? args[0] : [args[0] ?? null];
        return items.map((item) =>
          item !== null && typeof item === 'object' && !Array.isArray(item)
            ? startNumbered(dispatcher, [
                typeof item['task'] === 'string' ? item['task'] : '',
                item,
              ])
            : startNumbered(dispatcher, [item]),
        );
      },
    },
  };
}

/**
 * Python's `delegate`: the host numbers the task, after every task the dispatcher knows (a
 * resumed run's included). Like the guest's delegate, a task that could not start still has its
 * id (its failure is in the results); only a refusal to start anything (the run is ending) is
 * returned as is.
 */
function startNumbered(dispatcher: TaskDispatcher, args: JsonValue[]): string {
  const id = dispatcher.nextId();
  const { text, recorded } = startTask(dispatcher, [id, ...args]);
  return recorded ? id : text;
}

/**
 * The background-task verbs of a dispatcher sandbox. Like every host function they never throw
 * into code: bad arguments come back as an `"Error: …"` string naming what was expected.
 */
export function dispatcherFunctions(
  dispatcher: TaskDispatcher,
  {
    onAnswer,
    repl = 'javascript',
  }: { onAnswer: (answer: ProposedAnswer) => void; repl?: ReplLanguage },
): Record<string, ToolDefinition> {
  return {
    ...delegateFunction(dispatcher, repl),
    stream_results: {
      description:
        'stream_results() → Promise<TaskResult[]>: background tasks finished since the last call.',
      async call() {
        return dispatcher.streamResults();
      },
    },
    await_results: {
      description:
        'await_results(ids, { timeoutMs }?) → Promise<{ results, timedOut }>: waits for those tasks.',
      async call(args, { signal }) {
        const parsed = awaitArgsSchema.safeParse(args);
        if (!parsed.success) {
          return `Error: await_results expects (ids: string[], { timeoutMs }?)${issueText(parsed.error)}`;
        }
        const [ids, options] = parsed.data;
        return {
          ...(await dispatcher.awaitResults(typeof ids === 'string' ? [ids] : ids, {
            timeoutMs: options?.timeoutMs,
            signal,
          })),
        };
      },
    },
    inspect: {
      description: 'inspect(key) → Promise<entry | null>: a full scratchpad entry (task:<id>).',
      async call(args) {
        if (typeof args[0] !== 'string') return 'Error: inspect expects (key: string)';
        return dispatcher.inspect(args[0]);
      },
    },
    set_answer: {
      description:
        'set_answer(content, { ready, confidence }?) → "ok": records your answer; ready: true ends the run after this turn, ready: false keeps it as a draft.',
      async call(args) {
        const parsed = setAnswerArgsSchema.safeParse(args);
        if (!parsed.success) {
          return `Error: set_answer expects (content, { ready: boolean, confidence: number between 0 and 1 }?)${issueText(parsed.error)}`;
        }
        const [content, options] = parsed.data;
        onAnswer({
          content: typeof content === 'string' ? content : JSON.stringify(content),
          confidence: options?.confidence ?? null,
          ready: options?.ready ?? null,
        });
        return 'ok';
      },
    },
  };
}
