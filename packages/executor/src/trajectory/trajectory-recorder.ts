import { createHash } from 'node:crypto';
import {
  type ChatMessage,
  type JsonValue,
  type ModelResponse,
  type RunEvent,
  TRAJECTORY_VERSION,
  type TrajectoryRecord,
} from '@rlm/protocol';
import { redactSecrets, redactText } from './redact-secrets.js';
import type { TrajectorySink } from './trajectory-sink.js';

/**
 * Characters of one message kept in a trajectory. Longer messages (a sub-call carrying a big
 * chunk of context) keep their head plus the length and a hash of the whole text, so the file
 * stays small and replay can still tell whether a prompt changed.
 * @default 20_000
 */
export const DEFAULT_MAX_RECORDED_MESSAGE_CHARS = 20_000;

/** The form a message's text takes in a trajectory (also applied to live prompts during replay). */
export function recordedText(text: string, maxChars = DEFAULT_MAX_RECORDED_MESSAGE_CHARS): string {
  if (text.length <= maxChars) return redactText(text);
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `${redactText(text.slice(0, maxChars))}… + [${text.length - maxChars} chars... sha256:${hash}]`;
}

/** One model call and its outcome, as the recorder receives it. */
export interface ExchangeInput {
  runId: string;
  callId: string;
  system: string | undefined;
  messages: readonly ChatMessage[];
  response: ModelResponse | null;
  error?: { code: string; message: string } | undefined;
}

function samePrefixLength(previous: readonly ChatMessage[], next: readonly ChatMessage[]): number {
  const limit = Math.min(previous.length, next.length);
  let index = 0;
  while (
    index < limit &&
    previous[index]?.role === next[index]?.role &&
    previous[index]?.content === next[index]?.content
  ) {
    index++;
  }
  return index;
}

/**
 * Turns a run tree's events and model exchanges into trajectory records: secrets redacted,
 * long messages shortened, and each exchange storing only the messages that differ from the
 * previous exchange of the same run (`messagesFrom`), so a long conversation is not re-copied
 * every turn.
 */
export class TrajectoryRecorder {
  readonly #sink: TrajectorySink;
  readonly #lastMessages = new Map<string, ChatMessage[]>();

  constructor(sink: TrajectorySink) {
    this.#sink = sink;
  }

  get path(): string | undefined {
    return this.#sink.path;
  }

  header(input: { runId: string; createdAt: string; config: Record<string, JsonValue> }): void {
    const config = redactSecrets(input.config) as Record<string, JsonValue>;
    this.#write({ kind: 'header', version: TRAJECTORY_VERSION, ...input, config });
  }

  event(event: RunEvent): void {
    this.#write({ kind: 'event', event: redactSecrets(event as JsonValue) as RunEvent });
  }

  exchange({ runId, callId, system, messages, response, error }: ExchangeInput): void {
    const recorded = messages.map((message) => ({
      role: message.role,
      content: recordedText(message.content),
    }));
    const previous = this.#lastMessages.get(runId) ?? [];
    const messagesFrom = samePrefixLength(previous, recorded);
    this.#lastMessages.set(runId, recorded);
    this.#write({
      kind: 'model-exchange',
      runId,
      callId,
      request: {
        ...(system === undefined ? {} : { system: redactText(system) }),
        messages: recorded.slice(messagesFrom),
        messagesFrom,
      },
      response: response === null ? null : { ...response, text: redactText(response.text) },
      ...(error === undefined ? {} : { error: { ...error, message: redactText(error.message) } }),
    });
  }

  close(): Promise<void> {
    return this.#sink.close();
  }

  #write(record: TrajectoryRecord): void {
    try {
      this.#sink.write(record);
    } catch {
      // A full disk must not kill the run; the file simply ends early.
    }
  }
}
