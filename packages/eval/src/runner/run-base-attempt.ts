import { addCallUsage, emptyUsage } from '@rlm/protocol';
import { BASE_SYSTEM_PROMPT, baseUserMessage } from '../offline/base-prompt.js';
import type { EvalTask } from '../task/eval-task.js';
import { contextAsText, readTaskContext } from '../task/read-task-context.js';
import { type AttemptOutcome, describeFailure, usageTotals } from './attempt-outcome.js';
import type { BaseSystem } from './eval-system.js';
import type { ModelResolver } from './model-resolver.js';

/** Window assumed for a model that reports none, in tokens. @default 128_000 */
export const DEFAULT_BASE_CONTEXT_WINDOW = 128_000;
/**
 * Characters per token used to size the cut. Deliberately conservative for English prose so the
 * truncated prompt fits; a real tokenizer would let slightly more through.
 */
export const CHARS_PER_TOKEN = 3.5;

export interface RunBaseAttemptOptions {
  system: BaseSystem;
  task: EvalTask;
  resolveModel: ModelResolver;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/**
 * One direct model call with the context pasted into the prompt, cut from the end to fit the
 * window (the head is kept, as a naive long-context caller would); `truncatedChars` records the
 * cut. A failed call becomes status `error`; an abort rejects with the signal's reason.
 */
export async function runBaseAttempt({
  system,
  task,
  resolveModel,
  signal,
  now = Date.now,
}: RunBaseAttemptOptions): Promise<AttemptOutcome> {
  const model = resolveModel(system.model, { task, role: 'base' });
  const text = contextAsText(await readTaskContext(task));
  const window = system.contextWindow ?? model.contextWindow ?? DEFAULT_BASE_CONTEXT_WINDOW;
  const overhead =
    BASE_SYSTEM_PROMPT.length + baseUserMessage({ context: '', query: task.query }).length;
  const room = Math.max(
    0,
    Math.floor((window - system.maxOutputTokens) * CHARS_PER_TOKEN) - overhead,
  );
  const visible = text.length > room ? text.slice(0, room) : text;
  const started = now();
  const base = {
    iterations: 1,
    trajectoryPath: null,
    promptVersion: null,
    truncatedChars: text.length - visible.length,
    contextChars: text.length,
    model: model.id,
  };
  try {
    const response = await model.complete({
      system: BASE_SYSTEM_PROMPT,
      messages: [
        { role: 'user', content: baseUserMessage({ context: visible, query: task.query }) },
      ],
      maxTokens: system.maxOutputTokens,
      ...(signal === undefined ? {} : { signal }),
    });
    const usage = addCallUsage(emptyUsage(), {
      model: response.model,
      usage: response.usage,
      ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
    });
    return {
      ...base,
      answer: response.text.trim(),
      status: 'completed',
      ...usageTotals(usage),
      latencyMs: Math.max(0, now() - started),
      error: null,
    };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    return {
      ...base,
      answer: null,
      status: 'error',
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      latencyMs: Math.max(0, now() - started),
      error: describeFailure(error),
    };
  }
}
