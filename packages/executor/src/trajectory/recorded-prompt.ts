import { recordedText } from './trajectory-recorder.js';

/**
 * A sub-call's prompt with its trajectory form computed at most once: the exchange record and
 * the sub-call record both carry it, and redacting and hashing a prompt that holds a big chunk
 * of context is a full pass over it.
 */
export class RecordedPrompt {
  readonly text: string;
  #recorded: string | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** `recordedText(text)`, computed on first use. */
  recorded(): string {
    this.#recorded ??= recordedText(this.text);
    return this.#recorded;
  }
}
