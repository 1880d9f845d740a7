import { createHash } from 'node:crypto';
import type { JsonValue, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import {
  ExchangeEncoder,
  type ExchangeInput,
  type TrajectoryHeaderInput,
  trajectoryHeader,
} from '@rlm/trace';
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

/**
 * Turns a run tree's events and model exchanges into trajectory records: secrets redacted and
 * long messages shortened here, the format (header, exchange deltas) from `@rlm/trace`.
 */
export class TrajectoryRecorder {
  readonly #sink: TrajectorySink;
  readonly #exchanges = new ExchangeEncoder();

  constructor(sink: TrajectorySink) {
    this.#sink = sink;
  }

  get path(): string | undefined {
    return this.#sink.path;
  }

  header(input: TrajectoryHeaderInput): void {
    const config = redactSecrets(input.config) as Record<string, JsonValue>;
    this.#write(trajectoryHeader({ ...input, config }));
  }

  event(event: RunEvent): void {
    this.#write({ kind: 'event', event: redactSecrets(event as JsonValue) as RunEvent });
  }

  /** One model call and its outcome; the system prompt is kept whole (it is what was sent). */
  exchange({ runId, callId, system, messages, response, error }: ExchangeInput): void {
    this.#write(
      this.#exchanges.encode({
        runId,
        callId,
        system: system === undefined ? undefined : redactText(system),
        messages: messages.map((message) => ({
          role: message.role,
          content: recordedText(message.content),
        })),
        response: response === null ? null : { ...response, text: redactText(response.text) },
        error: error === undefined ? undefined : { ...error, message: redactText(error.message) },
      }),
    );
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
