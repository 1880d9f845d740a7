import { Buffer } from 'node:buffer';

/**
 * A long string lent to other threads piece by piece. The thread that holds the string (the
 * caller's, on the thread that calls `createSandbox`) copies one piece at a time into a small
 * shared buffer when a reader asks for it; a reader (the engine copying the text into WASM memory,
 * a scan worker decoding it) copies each piece where it needs it. No thread ever holds a second
 * full-size copy of the text just to pass it on, which a single shared buffer of its UTF-8 bytes
 * did (its size in memory for the sandbox's life).
 *
 * Pieces hold the characters as a QuickJS string keeps them (`PieceEncoding`): the engine copies
 * them into its string's memory as they come, with nothing decoded or converted, and the serving
 * thread has V8 copy them out of its own string. Any text goes, NUL characters and lone
 * surrogates included (code units are copied as they are).
 *
 * Protocol, per lane (one lane per kind of reader, so the engine and the scan worker reading at
 * the same time do not take turns): a reader publishes a request word (a fresh sequence number and
 * the character offset it wants) and waits; the holder's thread wakes (`Atomics.waitAsync`, so it
 * never blocks), clears the reply word, encodes the piece into the lane's buffer, records how many
 * characters it read and bytes it wrote, then publishes the request word as the reply. A reader
 * copies the piece and checks the reply word again (a sequence lock): a reader that died or
 * another reader that asked meanwhile can only make a reader ask again, never read a piece meant
 * for someone else. Readers block (`Atomics.wait`), so they must run on another thread; the
 * holder's own thread reads the string directly.
 */

/**
 * The most bytes of one piece (a lane's buffer holds one, and no more than the whole text).
 * Larger pieces take fewer round trips between threads (each a wake of the serving thread);
 * each lane's buffer costs this much memory for as long as the text is served.
 */
export const PIECE_BYTES = 1024 * 1024;

/** The least room for a piece: one UTF-16 code unit. */
const MIN_PIECE_BYTES = 2;

/** Which reader a lane serves. */
export type TextLane = 'engine' | 'scan';
const LANES: readonly TextLane[] = ['engine', 'scan'];

/**
 * How a stream's pieces hold the characters, as QuickJS stores a string: Latin-1 (a byte a
 * character) for text with no character above U+00FF, else UTF-16LE code units.
 */
export type PieceEncoding = 'latin1' | 'utf16le';

// Words (64-bit) of a lane's control area.
const COUNTER = 0;
const REQUEST = 1;
const REPLY = 2;
const SIZES = 3;
const CLOSED = 4;
const CONTROL_WORDS = 5;
const CONTROL_BYTES = CONTROL_WORDS * 8;

/** How often the holder's thread checks that someone still holds the text (ms). */
const HOLDER_CHECK_MS = 2_000;
/** How long a reader waits between checks that the text is still served (ms). */
const READER_CHECK_MS = 1_000;

/** `Atomics.waitAsync` (Node 16+; newer than the TypeScript library this package targets). */
interface AtomicsWaitAsync {
  waitAsync(
    array: BigInt64Array,
    index: number,
    value: bigint,
    timeoutMs: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** Plain data: crosses `postMessage` without copying the text (the buffers are shared). */
export interface TextStream {
  /** One buffer per lane: the control words, then room for one piece. */
  lanes: Record<TextLane, SharedArrayBuffer>;
  /** How the pieces hold the characters (on every lane). */
  encoding: PieceEncoding;
  /** Length of the text in UTF-16 code units. */
  length: number;
}

/**
 * Starts serving, on this thread, the string `textOf(owner)` and returns the stream readers use.
 * Only a weak reference to `owner` is kept: serving ends once it has been collected (checked
 * every `HOLDER_CHECK_MS`), which wakes any reader still waiting with an error, so the stream
 * never keeps the text alive by itself. `length`: the text's length in UTF-16 code units;
 * `encoding`: `latin1` only for text with no character above U+00FF (others would be cut).
 */
export function serveText<Owner extends object>(
  owner: Owner,
  textOf: (owner: Owner) => string | undefined,
  {
    length,
    encoding,
    pieceBytes = PIECE_BYTES,
  }: { length: number; encoding: PieceEncoding; pieceBytes?: number | undefined },
): TextStream {
  const held = new WeakRef(owner);
  const text = (): string | undefined => {
    const current = held.deref();
    return current === undefined ? undefined : textOf(current);
  };
  const bytes = encoding === 'latin1' ? length : length * 2;
  const lanes = {} as Record<TextLane, SharedArrayBuffer>;
  for (const lane of LANES) {
    const room = Math.max(Math.min(pieceBytes, bytes), MIN_PIECE_BYTES);
    lanes[lane] = new SharedArrayBuffer(CONTROL_BYTES + room);
    void new LaneServer(lanes[lane], text, encoding).run();
  }
  return { lanes, encoding, length };
}

/**
 * Answers one lane's requests until the text is no longer held. Only `#answer` (synchronous)
 * ever has the string in a local: a suspended async function keeps its frame's values, and
 * holding the text there would keep it alive for as long as the lane waits.
 */
class LaneServer {
  readonly #words: BigInt64Array;
  readonly #piece: Buffer;
  readonly #heldText: () => string | undefined;
  readonly #encoding: PieceEncoding;
  readonly #charsPerPiece: number;

  constructor(
    buffer: SharedArrayBuffer,
    heldText: () => string | undefined,
    encoding: PieceEncoding,
  ) {
    this.#words = new BigInt64Array(buffer, 0, CONTROL_WORDS);
    this.#piece = Buffer.from(buffer, CONTROL_BYTES);
    this.#heldText = heldText;
    this.#encoding = encoding;
    const room = this.#piece.length;
    this.#charsPerPiece = encoding === 'latin1' ? room : Math.floor(room / 2);
  }

  async run(): Promise<void> {
    const words = this.#words;
    let served = 0n;
    for (;;) {
      const request = Atomics.load(words, REQUEST);
      if (request !== served) {
        if (!this.#answer(request)) break;
        served = request;
        continue;
      }
      const waiting = (Atomics as unknown as AtomicsWaitAsync).waitAsync(
        words,
        REQUEST,
        request,
        HOLDER_CHECK_MS,
      );
      if (waiting.async) await waiting.value;
      if (Atomics.load(words, REQUEST) === served && !this.#held()) break;
    }
    close(words);
  }

  #held(): boolean {
    return this.#heldText() !== undefined;
  }

  /** Encodes the piece `request` asks for and publishes it; false once the text is gone. */
  #answer(request: bigint): boolean {
    const text = this.#heldText();
    if (text === undefined) return false;
    const words = this.#words;
    Atomics.store(words, REPLY, 0n);
    const start = Number(request & 0xffff_ffffn);
    // Code units as they are (a pair's halves may fall in two pieces): V8 copies them out of its
    // own string (a slice of a long string shares its characters), with no per-character work.
    const end = Math.min(text.length, start + this.#charsPerPiece);
    const read = end - start;
    const written = this.#piece.write(text.slice(start, end), 0, this.#encoding);
    Atomics.store(words, SIZES, (BigInt(read) << 32n) | BigInt(written));
    Atomics.store(words, REPLY, request);
    Atomics.notify(words, REPLY);
    return true;
  }
}

function close(words: BigInt64Array): void {
  Atomics.store(words, CLOSED, 1n);
  Atomics.notify(words, REPLY);
}

/**
 * Copies the text's characters, in the stream's encoding, into `target` (exactly their number of
 * bytes long), piece by piece.
 * Blocks this thread while the holder's thread encodes each piece: never call it on that thread.
 *
 * @throws Error when the text is no longer served (its holder was collected) or does not fit
 */
export function readTextInto(stream: TextStream, lane: TextLane, target: Uint8Array): void {
  const reader = new PieceReader(stream.lanes[lane], target);
  let start = 0;
  let at = 0;
  while (start < stream.length) {
    const { read, written } = reader.copyPiece(start, at);
    if (read === 0) throw new Error('the shared text ended early');
    start += read;
    at += written;
  }
  if (at !== target.length) throw new Error('the shared text is shorter than its byte length');
}

/** One reader's side of a lane: asks for pieces and copies them into its target. */
class PieceReader {
  readonly #words: BigInt64Array;
  readonly #piece: Uint8Array;
  readonly #target: Uint8Array;

  constructor(buffer: SharedArrayBuffer, target: Uint8Array) {
    this.#words = new BigInt64Array(buffer, 0, CONTROL_WORDS);
    this.#piece = new Uint8Array(buffer, CONTROL_BYTES);
    this.#target = target;
  }

  /**
   * Asks for the piece at character `start` and copies it to the target at `at`, until a copy
   * made while the piece stayed unchanged (a copy spoiled by a later request is made again).
   */
  copyPiece(start: number, at: number): { read: number; written: number } {
    for (;;) {
      const request = this.#ask(start);
      if (!this.#awaitReply(request)) continue;
      const sizes = Atomics.load(this.#words, SIZES);
      const written = Number(sizes & 0xffff_ffffn);
      this.#target.set(this.#piece.subarray(0, written), at);
      if (Atomics.load(this.#words, REPLY) === request) {
        return { read: Number(sizes >> 32n), written };
      }
    }
  }

  /** Publishes a request for the piece at `start`; returns its word. */
  #ask(start: number): bigint {
    const sequence = (Atomics.add(this.#words, COUNTER, 1n) & 0x7fff_ffffn) + 1n;
    const request = (sequence << 32n) | BigInt(start);
    Atomics.store(this.#words, REQUEST, request);
    Atomics.notify(this.#words, REQUEST);
    return request;
  }

  /** True once `request` is answered; false when another request replaced it (ask again). */
  #awaitReply(request: bigint): boolean {
    for (;;) {
      if (Atomics.load(this.#words, CLOSED) !== 0n) {
        throw new Error('the shared text is no longer served');
      }
      const reply = Atomics.load(this.#words, REPLY);
      if (reply === request) return true;
      // Another reader asked after us (or a dead one's request is being served).
      if (Atomics.load(this.#words, REQUEST) !== request) return false;
      Atomics.wait(this.#words, REPLY, reply, READER_CHECK_MS);
    }
  }
}
