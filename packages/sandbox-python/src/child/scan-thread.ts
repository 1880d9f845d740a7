/**
 * The scan thread of an interpreter process: runs `re.findall` over held payloads on V8 for the
 * interpreter thread (see host-regex-scan.ts), which waits for the reply and, when the block is
 * interrupted, terminates this thread (a V8 regex cannot be interrupted, a thread can). Imports
 * only Node built-ins and this package's child modules.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { FALLBACK_REPLY, findAllMatches } from './find-all-matches.js';

/** Interpreter thread → scan thread. */
export type ToScanThread =
  | { type: 'hold'; name: string; bytes: Uint8Array }
  | { type: 'release'; name: string }
  | { type: 'scan'; id: number; name: string; pattern: string; flags: number };

/** Scan thread → interpreter thread, on the reply port. */
export interface ScanReply {
  id: number;
  reply: string;
}

/** What the interpreter thread hands over when it starts this thread. */
export interface ScanThreadData {
  replies: MessagePort;
  /** Bumped (and notified) after each reply is posted. */
  signal: Int32Array;
}

if (parentPort === null) throw new Error('scan-thread must run in a worker_thread');
const { replies, signal } = workerData as ScanThreadData;
const bytesOf = new Map<string, Uint8Array>();
const texts = new Map<string, string>();
const decoder = new TextDecoder();

function textOf(name: string): string | undefined {
  const known = texts.get(name);
  if (known !== undefined) return known;
  const bytes = bytesOf.get(name);
  if (bytes === undefined) return undefined;
  const text = decoder.decode(bytes);
  bytesOf.delete(name);
  texts.set(name, text);
  return text;
}

parentPort.on('message', (message: ToScanThread) => {
  if (message.type === 'hold') {
    bytesOf.set(message.name, message.bytes);
    return;
  }
  if (message.type === 'release') {
    bytesOf.delete(message.name);
    texts.delete(message.name);
    return;
  }
  let reply = FALLBACK_REPLY;
  try {
    const text = textOf(message.name);
    if (text !== undefined) reply = findAllMatches(text, message.pattern, message.flags);
  } catch {
    reply = FALLBACK_REPLY;
  }
  replies.postMessage({ id: message.id, reply } satisfies ScanReply);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
