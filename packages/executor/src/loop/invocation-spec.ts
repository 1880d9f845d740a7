import type { Context } from '@opentelemetry/api';
import type { JsonValue, LanguageModel, ReplLanguage, RLMChatCompletion } from '@rlm/protocol';
import type { OutputSpec } from '../output/output-spec.js';
import type { CheckpointData } from '../resume/checkpoint-data.js';
import type { BudgetScope, ScopeLimits } from '../run/budget-scope.js';
import type { SessionBinding } from '../session/session-binding.js';

/** Everything one invocation (the root or a child) needs besides the shared run tree. */
export interface InvocationSpec {
  runId: string;
  parentRunId: string | null;
  depth: number;
  context: JsonValue;
  /** Payloads after the first (root only): `context_1`, `context_2`, … in the REPL. */
  contexts?: readonly JsonValue[] | undefined;
  /** The question; absent when the context is itself the prompt. */
  query: string | undefined;
  model: LanguageModel;
  /** The language of this invocation's REPL (its children inherit it unless a call overrides it). */
  repl: ReplLanguage;
  systemPrompt: string;
  maxIterations: number;
  /** The parent's scope; absent at the root. */
  parentScope?: BudgetScope | undefined;
  /** This invocation's own caps (the root's budget, or a child's share). */
  limits: ScopeLimits;
  /** Absolute wall-clock deadline (root only; children inherit it). */
  deadlineAt?: number | undefined;
  /** Cancels this invocation: the caller's signal at the root, the calling block's for a child. */
  signal?: AbortSignal | undefined;
  /** Names of the configured tools this invocation may call; all of them when absent. */
  toolNames?: readonly string[] | undefined;
  /** The session this (root) invocation runs in, lending its sandbox; absent outside sessions. */
  session?: SessionBinding | undefined;
  /** The checkpoint a resumed root continues from. */
  resume?: CheckpointData | undefined;
  /** The root's typed-answer schema: a final answer counts only when it matches. */
  output?: OutputSpec | undefined;
  /** A root run again from its first turn after a stop without a checkpoint. */
  rerun?: boolean | undefined;
  /** The OpenTelemetry context the invocation's span goes under (the sub-call's, for a child). */
  traceContext?: Context | undefined;
  /**
   * A child that can escalate: after this many turns in a row whose code failed (when below the
   * run's `maxConsecutiveErrors`) it stops, and `onErrorLimit` is told before it does.
   */
  errorLimit?: number | undefined;
  /** Told when the consecutive-errors limit stops this invocation (the caller may escalate). */
  onErrorLimit?: ((consecutiveErrors: number) => void) | undefined;
  /** Hears each host function call of this invocation's code and its children's (a task's count). */
  onHostCall?: (() => void) | undefined;
}

/** Runs one invocation to its end; never rejects for model or code failures. */
export type Invoke = (spec: InvocationSpec) => Promise<RLMChatCompletion>;
