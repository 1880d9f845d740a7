import {
  emptyUsage,
  type JsonValue,
  type LanguageModel,
  type ReplLanguage,
  type RLMChatCompletion,
} from '@rlm/protocol';
import { recordedText } from '@rlm/trace';
import type { BudgetRemaining, ScopeLimits } from '../run/budget-scope.js';
import type { RunNode } from '../run/run-node.js';
import type { Invoke } from './invocation-spec.js';
import { errorString, preview } from './sub-call.js';
import type { SubCallOutcome } from './sub-call-outcome.js';
import { childSystemPrompt, iterationsFor } from './system-prompts.js';

/** What `childCall` needs: the call's arguments, the calling block's signal and how to invoke. */
export interface ChildCallInput {
  prompt: string;
  context?: JsonValue | undefined;
  systemPrompt?: string | undefined;
  model: LanguageModel;
  /** Aborted when the calling block stops. */
  signal: AbortSignal;
  /** How many siblings share the remaining budget (the batch's concurrency). */
  shareCount: number;
  invoke: Invoke;
  /** Names of the caller's tools the child may call; all of them when absent. */
  toolNames?: readonly string[] | undefined;
  /** The child's REPL language. */
  repl: ReplLanguage;
}

/** A child's caps: its equal share of what the tree has left when it starts. */
export function budgetShare(remaining: BudgetRemaining, shareCount: number): ScopeLimits {
  const part = (value: number | null) =>
    value === null ? undefined : Math.floor(value / Math.max(1, shareCount));
  const costPart =
    remaining.costUsd === null ? undefined : remaining.costUsd / Math.max(1, shareCount);
  return {
    maxTokens: part(remaining.tokens),
    maxCostUsd: costPart,
    maxSubcalls: part(remaining.subcalls),
  };
}

/** What the calling code receives from a child: its answer, or an error string saying how it ended. */
export function childResultText(result: RLMChatCompletion): string {
  if (result.answer !== null) return result.answer;
  const why = result.error === null ? '' : ` (${result.error.message})`;
  const partial =
    result.partialAnswer === null ? '' : `. Its latest response was: ${result.partialAnswer}`;
  return `Error: child run ${result.runId} ended with status ${result.status}${why}${partial}`;
}

/**
 * Runs `rlm_query` below the depth limit: a child invocation at depth + 1 with its own sandbox,
 * a solver (or specialist) prompt, `context` (or the prompt itself) as its context, and its
 * share of the remaining budget. Never throws.
 */
export async function childCall(node: RunNode, input: ChildCallInput): Promise<string> {
  return (await childRun(node, input)).text;
}

/** `childCall` with the outcome in full (background tasks report `ok` and `usage`). Never throws. */
export async function childRun(node: RunNode, input: ChildCallInput): Promise<SubCallOutcome> {
  const { prompt, context, systemPrompt, model, signal, shareCount, invoke, toolNames, repl } =
    input;
  if (!node.scope.reserveSubcall()) {
    return {
      text: errorString(node.scope.signal.reason ?? 'sub-call limit reached'),
      ok: false,
      usage: emptyUsage(),
    };
  }
  const { config } = node.tree;
  const depth = node.depth + 1;
  const callId = node.nextCallId();
  const childRunId = node.nextChildRunId();
  const startedAt = node.tree.now();
  node.emit({
    type: 'subcall-start',
    callId,
    kind: 'rlm',
    model: model.id,
    promptPreview: preview(prompt),
    childRunId,
  });
  const traced = node.tree.tracing.startSubCall(node.spans, {
    kind: 'rlm',
    callId,
    model: model.id,
  });
  let text: string;
  let ok = false;
  let result: RLMChatCompletion | undefined;
  try {
    result = await invoke({
      runId: childRunId,
      parentRunId: node.runId,
      depth,
      // A scalar is not a valid context payload; give the child its text instead.
      context:
        context === undefined
          ? prompt
          : typeof context === 'object' && context !== null
            ? context
            : String(context),
      query: context === undefined ? undefined : prompt,
      model,
      repl,
      systemPrompt: childSystemPrompt(config, { depth, systemPrompt, toolNames, repl }),
      maxIterations: iterationsFor(config, depth),
      parentScope: node.scope,
      limits: budgetShare(node.scope.remaining(), shareCount),
      signal,
      ...(toolNames === undefined ? {} : { toolNames }),
      traceContext: traced.context,
    });
    text = childResultText(result);
    ok = result.answer !== null;
  } catch (error) {
    text = errorString(error);
  }
  node.tree.tracing.endSubCall(traced.span, {
    ok,
    error: result?.error ?? (ok ? undefined : { code: 'unknown', message: text }),
  });
  const durationMs = node.tree.now() - startedAt;
  node.emit({
    type: 'subcall-end',
    callId,
    kind: 'rlm',
    ok,
    durationMs,
    responsePreview: preview(text),
    childRunId,
    ...(ok || result?.error == null ? {} : { error: result.error }),
  });
  node.recordSubCall({
    kind: 'rlm',
    model: model.id,
    prompt: recordedText(prompt),
    promptChars: prompt.length,
    response: text,
    ok,
    durationMs,
    usage: result?.usage ?? { models: {} },
    runId: childRunId,
  });
  return { text, ok, usage: result?.usage ?? emptyUsage() };
}
