import { joinList, list, push, record, slice } from './primordials.js';
import { limits } from './scaffold-settings.js';

export type StreamName = 'stdout' | 'stderr';

export interface Stream {
  parts: string[];
  used: number;
  dropped: number;
}

/** A block's output, taken by the host when the block ends. */
export interface TakenOutput {
  stdout: string;
  stderr: string;
  droppedStdout: number;
  droppedStderr: number;
}

export function emptyStream(): Stream {
  const stream = record<Stream>();
  stream.parts = list<string>();
  stream.used = 0;
  stream.dropped = 0;
  return stream;
}

export interface Streams {
  stdout: Stream;
  stderr: Stream;
  /**
   * Output is collected only while a block runs. Guest code that runs at other times (a leftover
   * job being stopped, a getter reached while the host reads a variable) prints nowhere: its text
   * would otherwise appear in the next block's output.
   */
  open: boolean;
}

export const streams = record<Streams>();
streams.stdout = emptyStream();
streams.stderr = emptyStream();
streams.open = false;

/** Starts collecting a block's output. */
export function openOutput(): void {
  streams.open = true;
}

/** Stops collecting output: what guest code prints from now on goes nowhere. */
export function closeOutput(): void {
  streams.open = false;
}

/** Appends to a stream, keeping at most `maxOutputChars` and counting what is left out. */
export function write(name: StreamName, text: string): void {
  if (!streams.open) return;
  const stream = streams[name];
  const room = limits.maxOutputChars - stream.used;
  if (room <= 0) {
    stream.dropped += text.length;
    return;
  }
  if (text.length > room) {
    push(stream.parts, slice(text, 0, room));
    stream.dropped += text.length - room;
    stream.used = limits.maxOutputChars;
    return;
  }
  push(stream.parts, text);
  stream.used += text.length;
}

/** The block's output so far; stops collecting and starts the next block's streams empty. */
export function takeOutput(): TakenOutput {
  const taken = peekOutput();
  const stdout = emptyStream();
  const stderr = emptyStream();
  streams.open = false;
  streams.stdout = stdout;
  streams.stderr = stderr;
  return taken;
}

/** The block's output so far, left in place. */
export function peekOutput(): TakenOutput {
  const taken = record<TakenOutput>();
  taken.stdout = streamText(streams.stdout);
  taken.stderr = streamText(streams.stderr);
  taken.droppedStdout = streams.stdout.dropped;
  taken.droppedStderr = streams.stderr.dropped;
  return taken;
}

/** A stream's text (`finishBlock` reads it without `peekOutput`'s record). */
export function streamText(stream: Stream): string {
  const parts = stream.parts;
  if (parts.length === 0) return '';
  return parts.length === 1 ? (parts[0] as string) : joinList(parts, '');
}

/** Whether nothing was written to a stream, not even text that was dropped. */
export function isEmpty(stream: Stream): boolean {
  return stream.parts.length === 0 && stream.dropped === 0 && stream.used === 0;
}
