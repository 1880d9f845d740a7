import {
  emptyUsage,
  type JsonValue,
  type LanguageModel,
  mergeUsage,
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
  /** The caller's turns left; the child gets at most its share of them. */
  parentIterationsLeft?: number | undefined;
}

/**
 * The share of its parent's remaining budget a child receives at most, when the run sets no
 * `childBudgetShare`: half. A child that needs more than half of what is left is rare (it is a
 * sub-task), and half leaves the parent room to use the child's answer, retry once, or start a
 * second child; with 1 a first child could spend everything and leave its caller unable to
 * finish. Depth compounds it: a grandchild gets at most a quarter of what the root had left.
 */
export const DEFAULT_CHILD_BUDGET_SHARE = 0.5;

/**
 * A child's caps: what the tree has left when it starts, split equally among the siblings
 * running at once, and never more than `share` of it.
 */
export function budgetShare(
  remaining: BudgetRemaining,
  shareCount: number,
  share = 1,
): ScopeLimits {
  const siblings = Math.max(1, shareCount);
  const part = (value: number | null) =>
    value === null ? undefined : Math.min(Math.floor(value / siblings), Math.floor(value * share));
  const costPart =
    remaining.costUsd === null
      ? undefined
      : Math.min(remaining.costUsd / siblings, remaining.costUsd * share);
  return {
    maxTokens: part(remaining.tokens),
    maxCostUsd: costPart,
    maxSubcalls: part(remaining.subcalls),
  };
}

/** What a child may spend: its caps, its turns and its deadline. */
interface ChildBudget {
  limits: ScopeLimits;
  maxIterations: number;
  deadlineAt: number | undefined;
  wallTimeMs: number | null;
}

/**
 * The child's budget when it starts: of what its parent has left, at most `childBudgetShare`
 * (split among the siblings running at once) of the tokens, cost and sub-calls, that share of its
 * turns left (at least one) and of the wall time left.
 */
function childBudget(
  node: RunNode,
  {
    depth,
    shareCount,
    parentIterationsLeft,
  }: { depth: number; shareCount: number; parentIterationsLeft: number | undefined },
): ChildBudget {
  const { config } = node.tree;
  const share = config.budget.childBudgetShare ?? DEFAULT_CHILD_BUDGET_SHARE;
  const remaining = node.scope.remaining();
  const configured = iterationsFor(config, depth);
  const maxIterations =
    parentIterationsLeft === undefined
      ? configured
      : Math.min(configured, Math.max(1, Math.floor(parentIterationsLeft * share)));
  const wallTimeMs =
    remaining.wallTimeMs === null ? null : Math.floor(remaining.wallTimeMs * share);
  return {
    limits: budgetShare(remaining, shareCount, share),
    maxIterations,
    deadlineAt: wallTimeMs === null ? undefined : node.tree.now() + wallTimeMs,
    wallTimeMs,
  };
}

/** The sentence that tells a child its own budget, in its system prompt. */
export function budgetStatement({ limits, maxIterations, wallTimeMs }: ChildBudget): string {
  const parts = [`${maxIterations} ${maxIterations === 1 ? 'turn' : 'turns'}`];
  if (limits.maxTokens !== undefined) parts.push(`${limits.maxTokens} tokens`);
  if (limits.maxCostUsd !== undefined) parts.push(`$${limits.maxCostUsd.toFixed(4)}`);
  if (limits.maxSubcalls !== undefined) parts.push(`${limits.maxSubcalls} sub-calls`);
  if (wallTimeMs !== null) parts.push(`${Math.floor(wallTimeMs / 1000)} s of wall time`);
  return (
    `Your budget for this task (a share of your caller's): at most ${parts.join(', ')}, your ` +
    'own calls and sub-calls included. When it runs out you stop without an answer, so answer ' +
    'within it.'
  );
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

/**
 * `childCall` with the outcome in full (background tasks report `ok` and `usage`). A child that
 * fails in a way a stronger model may fix runs again once on the next rung of the escalation
 * ladder, with its share of what the tree has left then. Never throws.
 */
export async function childRun(node: RunNode, input: ChildCallInput): Promise<SubCallOutcome> {
  const ladder = node.tree.config.escalate;
  const to = nextRung(ladder, input.model);
  const first = await childAttempt(node, input, { escalates: to !== undefined });
  if (to === undefined || first.reason === undefined) return first.outcome;
  // A stopped caller or tree wants no more calls; the refusal would only say so again.
  if (input.signal.aborted || node.scope.signal.aborted) return first.outcome;
  const again = await childAttempt(
    node,
    { ...input, model: to },
    {
      escalates: false,
      escalation: {
        callId: first.callId,
        childRunId: first.childRunId,
        fromModel: input.model.id,
        reason: first.reason,
        ...(first.consecutiveErrors === undefined
          ? {}
          : { consecutiveErrors: first.consecutiveErrors }),
        attempt: 1,
      },
    },
  );
  return {
    ...again.outcome,
    usage: mergeUsage(first.outcome.usage, again.outcome.usage),
  };
}

/**
 * The model a failed child runs again on: the rung above the child's model, or the ladder's
 * first rung for a model off the ladder; none above the last rung.
 */
export function nextRung(
  ladder: readonly LanguageModel[],
  model: LanguageModel,
): LanguageModel | undefined {
  const at = ladder.findIndex((rung) => rung.id === model.id);
  return ladder[at + 1];
}

/** One child run: its outcome, its ids, and why a stronger model should try it, if so. */
type ChildAttempt =
  | { outcome: SubCallOutcome; reason?: undefined }
  | {
      outcome: SubCallOutcome;
      callId: string;
      childRunId: string;
      reason: EscalationReason;
      /** With `errors`: the failed turns in a row that stopped the child. */
      consecutiveErrors?: number | undefined;
    };

/** The failed child an escalated attempt runs again (for the `escalation` event). */
interface EscalatedFrom {
  callId: string;
  childRunId: string;
  fromModel: string;
  reason: EscalationReason;
  consecutiveErrors?: number;
  attempt: number;
}

type EscalationReason = 'errors' | 'no-answer';

/** Why a child's end calls for a stronger model: stuck on errors, or out of turns with no answer. */
function escalationReason(
  result: RLMChatCompletion | undefined,
  errorsAtLimit: number | undefined,
): EscalationReason | undefined {
  if (result === undefined || result.answer !== null) return undefined;
  if (errorsAtLimit !== undefined && result.status === 'budget_exceeded') return 'errors';
  return result.status === 'max_iterations' ? 'no-answer' : undefined;
}

/** The child's context and question: `context` when the call passed one, else the prompt itself. */
function childPayload(
  prompt: string,
  context: JsonValue | undefined,
): { context: JsonValue; query: string | undefined } {
  if (context === undefined) return { context: prompt, query: undefined };
  // A scalar is not a valid context payload; give the child its text instead.
  return {
    context: typeof context === 'object' && context !== null ? context : String(context),
    query: prompt,
  };
}

async function childAttempt(
  node: RunNode,
  input: ChildCallInput,
  { escalates, escalation }: { escalates: boolean; escalation?: EscalatedFrom | undefined },
): Promise<ChildAttempt> {
  const {
    prompt,
    context,
    systemPrompt,
    model,
    signal,
    shareCount,
    invoke,
    toolNames,
    repl,
    parentIterationsLeft,
  } = input;
  if (!node.scope.reserveSubcall()) {
    return {
      outcome: {
        text: errorString(node.scope.signal.reason ?? 'sub-call limit reached'),
        ok: false,
        usage: emptyUsage(),
      },
    };
  }
  const { config } = node.tree;
  const depth = node.depth + 1;
  const budget = childBudget(node, { depth, shareCount, parentIterationsLeft });
  const callId = node.nextCallId();
  const childRunId = node.nextChildRunId();
  const startedAt = node.tree.now();
  if (escalation !== undefined) {
    node.emit({ type: 'escalation', ...escalation, toChildRunId: childRunId, toModel: model.id });
  }
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
  /** The failed turns in a row when the error limit stopped the child. */
  let errorsAtLimit: number | undefined;
  try {
    result = await invoke({
      runId: childRunId,
      parentRunId: node.runId,
      depth,
      ...childPayload(prompt, context),
      model,
      repl,
      systemPrompt: `${childSystemPrompt(config, { depth, systemPrompt, toolNames, repl })}\n\n${budgetStatement(budget)}`,
      maxIterations: budget.maxIterations,
      parentScope: node.scope,
      limits: budget.limits,
      deadlineAt: budget.deadlineAt,
      signal,
      ...(toolNames === undefined ? {} : { toolNames }),
      traceContext: traced.context,
      ...(escalates ? { errorLimit: config.escalateAfterErrors } : {}),
      onErrorLimit: (consecutiveErrors) => {
        errorsAtLimit = consecutiveErrors;
      },
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
  const outcome = { text, ok, usage: result?.usage ?? emptyUsage() };
  const reason = escalates ? escalationReason(result, errorsAtLimit) : undefined;
  if (reason === undefined) return { outcome };
  return reason === 'errors'
    ? { outcome, callId, childRunId, reason, consecutiveErrors: errorsAtLimit }
    : { outcome, callId, childRunId, reason };
}
