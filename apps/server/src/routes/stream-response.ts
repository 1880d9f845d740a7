import type { RlmError } from '@rlm/protocol';
import type { SSEStreamingApi } from 'hono/streaming';
import type { RunOutcome } from '../run-outcome.js';
import type { FollowRunProgressOptions } from './follow-run-progress.js';
import { followRunProgress } from './follow-run-progress.js';
import { replyText } from './openai-run-replies.js';
import {
  answerMessage,
  messageItemId,
  outputText,
  progressItem,
  type ResponseIdentity,
  reasoningItemId,
  responseObject,
} from './response-object.js';

export interface StreamResponseOptions {
  identity: ResponseIdentity;
  /** How the run is followed (store, hub, `done`, heartbeat); progress goes into the reasoning item. */
  follow: Omit<FollowRunProgressOptions, 'onProgress' | 'onIdle'>;
  /** Hides what this key may not see in progress text. */
  redact: (text: string) => string;
  /** Why the ended run is no answer (it failed, or found no answer matching the schema). */
  failureOf: (outcome: RunOutcome) => RlmError | undefined;
}

/**
 * Writes a response as the Responses API's typed SSE events: `response.created` and
 * `response.in_progress`; the run's progress as a reasoning item's summary text while it works;
 * then the answer message and `response.completed` (`response.incomplete` when the run stopped
 * at a limit), or `response.failed`.
 */
export async function streamResponse(
  stream: SSEStreamingApi,
  { identity, follow, redact, failureOf }: StreamResponseOptions,
): Promise<void> {
  const events = responseEvents(stream);
  await events.send('response.created', { response: responseObject(identity) });
  await events.send('response.in_progress', { response: responseObject(identity) });
  const progress = progressReasoning(events, identity.runId);
  const outcome = await followRunProgress({
    ...follow,
    onProgress: (lines) => progress.add(redact(lines)),
    onIdle: () => stream.write(': keep-alive\n\n'),
  });
  const output: object[] = [];
  const reasoning = await progress.close();
  if (reasoning !== undefined) output.push(reasoning);
  const failure = failureOf(outcome);
  if (failure !== undefined) {
    await events.send('response.failed', {
      response: responseObject(identity, { outcome, output, failure }),
    });
    return;
  }
  output.push(
    await sendAnswer(events, {
      runId: identity.runId,
      text: replyText(outcome),
      at: output.length,
    }),
  );
  await events.send(outcome.status === 'completed' ? 'response.completed' : 'response.incomplete', {
    response: responseObject(identity, { outcome, output }),
  });
}

type ResponseEvents = ReturnType<typeof responseEvents>;

/** Typed events (`event:` is the type, as OpenAI sends them), numbered from 0. */
function responseEvents(stream: SSEStreamingApi) {
  let sequence = 0;
  return {
    send(type: string, fields: object) {
      const data = JSON.stringify({ type, sequence_number: sequence, ...fields });
      sequence += 1;
      return stream.writeSSE({ event: type, data });
    },
  };
}

/**
 * The reasoning item (output 0) that carries progress: opened with the first lines, one summary
 * delta per batch, closed once the run ends. No progress, no item.
 */
function progressReasoning(events: ResponseEvents, runId: string) {
  const where = { item_id: reasoningItemId(runId), output_index: 0, summary_index: 0 };
  let text = '';
  return {
    async add(delta: string) {
      if (text === '') {
        await events.send('response.output_item.added', {
          output_index: 0,
          item: progressItem(runId, '', 'in_progress'),
        });
        await events.send('response.reasoning_summary_part.added', {
          ...where,
          part: { type: 'summary_text', text: '' },
        });
      }
      text += delta;
      await events.send('response.reasoning_summary_text.delta', { ...where, delta });
    },
    async close(): Promise<object | undefined> {
      if (text === '') return undefined;
      await events.send('response.reasoning_summary_text.done', { ...where, text });
      await events.send('response.reasoning_summary_part.done', {
        ...where,
        part: { type: 'summary_text', text },
      });
      const item = progressItem(runId, text, 'completed');
      await events.send('response.output_item.done', { output_index: 0, item });
      return item;
    },
  };
}

/** The answer message: added, its one text part with the whole answer as one delta, done. */
async function sendAnswer(
  events: ResponseEvents,
  { runId, text, at }: { runId: string; text: string; at: number },
): Promise<object> {
  const where = { item_id: messageItemId(runId), output_index: at, content_index: 0 };
  await events.send('response.output_item.added', {
    output_index: at,
    item: answerMessage(runId, '', 'in_progress'),
  });
  await events.send('response.content_part.added', { ...where, part: outputText('') });
  await events.send('response.output_text.delta', { ...where, delta: text, logprobs: [] });
  await events.send('response.output_text.done', { ...where, text, logprobs: [] });
  await events.send('response.content_part.done', { ...where, part: outputText(text) });
  const item = answerMessage(runId, text, 'completed');
  await events.send('response.output_item.done', { output_index: at, item });
  return item;
}
