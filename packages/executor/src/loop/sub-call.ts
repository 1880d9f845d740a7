import {
  addCallUsage,
  emptyUsage,
  type LanguageModel,
  RlmError,
  type SubCallRecord,
} from '@rlm/protocol';
import { recordedText } from '@rlm/trace';
import { callModel } from '../run/call-model.js';
import { errorInfo } from '../run/error-info.js';
import type { RunNode } from '../run/run-node.js';
import type { SubCallOutcome } from './sub-call-outcome.js';

/** Characters of a prompt or response shown in `subcall-*` events. */
export const PREVIEW_CHARS = 200;

/** The first `PREVIEW_CHARS` of a text, for events. */
export function preview(text: string): string {
  return text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;
}

/** The string code receives instead of a result when a sub-call fails. */
export function errorString(error: unknown): string {
  return `Error: ${errorInfo(error).message}`;
}

/** One plain sub-call: the model, the prompt and (at the depth limit) the flat system prompt. */
export interface OneShotInput {
  model: LanguageModel;
  prompt: string;
  system?: string | undefined;
  /** Aborted when the block that made the call stops. */
  signal: AbortSignal;
}

function subCallRecord(
  fields: Omit<SubCallRecord, 'prompt' | 'promptChars' | 'usage'> & { prompt: string },
  usage: SubCallRecord['usage'],
): SubCallRecord {
  return {
    ...fields,
    prompt: recordedText(fields.prompt),
    promptChars: fields.prompt.length,
    usage,
  };
}

/**
 * One plain model call made from code (`llm_query`, or `rlm_query` at the depth limit). Never
 * throws: a failure becomes an `"Error: …"` string, so one bad call cannot crash the caller's code.
 */
export async function oneShotCall(node: RunNode, input: OneShotInput): Promise<string> {
  return (await oneShot(node, input)).text;
}

/**
 * `oneShotCall` with the outcome in full (background tasks report `ok` and `usage`; a call the
 * budget had no room for carries the `refusal`). Never throws.
 */
export async function oneShot(node: RunNode, input: OneShotInput): Promise<SubCallOutcome> {
  const { model, prompt, system, signal } = input;
  if (!node.scope.reserveSubcall()) {
    return {
      text: errorString(node.scope.signal.reason ?? 'sub-call limit reached'),
      ok: false,
      usage: emptyUsage(),
    };
  }
  const callId = node.nextCallId();
  const startedAt = node.tree.now();
  node.emit({
    type: 'subcall-start',
    callId,
    kind: 'llm',
    model: model.id,
    promptPreview: preview(prompt),
  });
  const traced = node.tree.tracing.startSubCall(node.spans, {
    kind: 'llm',
    callId,
    model: model.id,
  });
  try {
    const response = await callModel(node, {
      model,
      system,
      messages: [{ role: 'user', content: prompt }],
      purpose: 'sub',
      callId,
      signal,
      traceContext: traced.context,
    });
    node.tree.tracing.endSubCall(traced.span, { ok: true });
    const durationMs = node.tree.now() - startedAt;
    node.emit({
      type: 'subcall-end',
      callId,
      kind: 'llm',
      ok: true,
      durationMs,
      responsePreview: preview(response.text),
    });
    const usage = addCallUsage(emptyUsage(), response);
    node.recordSubCall(
      subCallRecord(
        {
          kind: 'llm',
          model: response.model,
          prompt,
          response: response.text,
          ok: true,
          durationMs,
        },
        usage,
      ),
    );
    return { text: response.text, ok: true, usage };
  } catch (error) {
    node.tree.tracing.endSubCall(traced.span, { ok: false, error: errorInfo(error) });
    const durationMs = node.tree.now() - startedAt;
    const message = errorString(error);
    node.emit({
      type: 'subcall-end',
      callId,
      kind: 'llm',
      ok: false,
      durationMs,
      responsePreview: preview(message),
      error: errorInfo(error),
    });
    node.recordSubCall(
      subCallRecord(
        { kind: 'llm', model: model.id, prompt, response: message, ok: false, durationMs },
        emptyUsage(),
      ),
    );
    const refused = RlmError.is(error, 'executor.budget_exceeded') ? { refusal: error } : {};
    return { text: message, ok: false, usage: emptyUsage(), ...refused };
  }
}
