import { createHash } from 'node:crypto';
import type { JsonValue, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { ExchangeEncoder, type ExchangeInput } from './recorded-exchanges.js';
import { redactSecrets, redactText } from './redact-secrets.js';
import { type TrajectoryHeaderInput, trajectoryHeader } from './trajectory-header.js';
import { TrajectoryPacker } from './trajectory-packer.js';
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
  readonly #packer: TrajectoryPacker | undefined;

  /**
   * `payloads` are the run's contexts (`context`, then the extra `contexts`): a sink that takes
   * packed lines gets slices of them as references, so a run whose prompts carry chunks of a big
   * context records a small file.
   */
  constructor(sink: TrajectorySink, { payloads = [] }: { payloads?: readonly JsonValue[] } = {}) {
    this.#sink = sink;
    this.#packer = sink.writeLine === undefined ? undefined : new TrajectoryPacker({ payloads });
  }

  get path(): string | undefined {
    return this.#sink.path;
  }

  header(input: TrajectoryHeaderInput): void {
    const config = redactSecrets(input.config) as Record<string, JsonValue>;
    this.#write(trajectoryHeader({ ...input, config }));
  }

  event(event: RunEvent): void {
    if (event.type === 'run-start' && event.parentRunId === null) {
      // The root's payloads were just hashed for this event: the packer's declarations reuse them.
      this.#packer?.knowPayloadHashes(
        event.context.map((info) =>
          info.type === 'string' && info.hash !== undefined
            ? { hash: info.hash, length: info.totalLength }
            : undefined,
        ),
      );
    }
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
      const writeLine = this.#sink.writeLine?.bind(this.#sink);
      if (this.#packer === undefined || writeLine === undefined) this.#sink.write(record);
      else writeLine(this.#packer.pack(record), record);
    } catch {
      // A full disk must not kill the run; the file simply ends early.
    }
  }
}
