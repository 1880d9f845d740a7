/**
 * One output stream of a block (stdout or stderr), decoded from the bytes the interpreter writes
 * and kept up to `maxChars` characters; the rest is only counted, for the truncation marker.
 */
export class OutputCapture {
  #decoder = new TextDecoder();
  #parts: string[] = [];
  #kept = 0;
  #dropped = 0;
  #maxChars = 0;

  /** Starts a new block's capture. */
  reset(maxChars: number): void {
    this.#decoder = new TextDecoder();
    this.#parts = [];
    this.#kept = 0;
    this.#dropped = 0;
    this.#maxChars = maxChars;
  }

  /** Pyodide's `write` handler: takes the bytes and reports them all written. */
  readonly write = (buffer: Uint8Array): number => {
    this.#add(this.#decoder.decode(buffer, { stream: true }));
    return buffer.length;
  };

  /** The captured text and how many characters were dropped. */
  take(): { text: string; dropped: number } {
    this.#add(this.#decoder.decode());
    const taken = { text: this.#parts.join(''), dropped: this.#dropped };
    this.#parts = [];
    return taken;
  }

  #add(text: string): void {
    const room = this.#maxChars - this.#kept;
    if (room >= text.length) {
      this.#parts.push(text);
      this.#kept += text.length;
      return;
    }
    if (room > 0) this.#parts.push(text.slice(0, room));
    this.#kept += Math.max(0, room);
    this.#dropped += text.length - Math.max(0, room);
  }
}
