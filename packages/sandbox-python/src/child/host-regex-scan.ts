import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { FALLBACK_REPLY } from './find-all-matches.js';
import { translatePythonRegex } from './python-regex-subset.js';
import type { ScanReply, ScanThreadData, ToScanThread } from './scan-thread.js';

/** Payloads shorter than this stay with Python's `re` (a scan there is quick enough). */
export const HOST_SCAN_MIN_CHARS = 1024 * 1024;
/** How often a waiting interpreter thread looks at its interrupt buffer. */
const INTERRUPT_POLL_MS = 10;
// Resolved while the realm still has everything (realm-guard.ts strips it after loading).
const SCAN_THREAD_URL = new URL('./scan-thread.js', import.meta.url);

/** What the scaffold writes to the device for a scan (see `_host_findall` in scaffold.py). */
interface ScanRequest {
  scan: { payload: string; pattern: string; flags: number };
}

interface ScanThread {
  worker: Worker;
  replies: MessageChannel['port1'];
  signal: Int32Array;
}

/**
 * `re.findall` over large ASCII text payloads on V8, for the interpreter thread. It keeps their
 * UTF-8 bytes and, on the first scan, hands them to a scan thread of its own (started then) that
 * decodes and scans them. A request the scaffold writes to `/dev/rlm` as `{"scan": …}` is answered
 * here, without crossing to the host process; every other request is not this object's. While it
 * waits, the interpreter thread watches its interrupt buffer: an interrupted block terminates the
 * scan thread and falls back to Python's `re`, which then raises the interrupt as it would have
 * (and the session scans in Python from then on).
 */
export class HostRegexScan {
  readonly #held = new Map<string, Uint8Array>();
  #thread: ScanThread | undefined;
  #interrupt: Int32Array | undefined;
  #disabled = false;
  #nextId = 1;

  /** The interpreter's interrupt buffer (Pyodide's: non-zero once the block must stop). */
  watch(interrupt: Int32Array): void {
    this.#interrupt = interrupt;
  }

  /** Keeps a text payload for scans when it qualifies; says whether it did. */
  hold(name: string, bytes: Uint8Array, ascii: boolean): boolean {
    if (!ascii || bytes.length < HOST_SCAN_MIN_CHARS || this.#disabled) return false;
    this.#held.set(name, bytes);
    return true;
  }

  /** Forgets a payload the host has replaced (its text is no longer what Python holds). */
  release(name: string): void {
    this.#held.delete(name);
    this.#thread?.worker.postMessage({ type: 'release', name } satisfies ToScanThread);
  }

  /** The reply to a scan request, or `undefined` when the request is not a scan. */
  answer(request: string): string | undefined {
    if (!request.startsWith('{"scan":')) return undefined;
    let scan: ScanRequest['scan'] | undefined;
    try {
      scan = (JSON.parse(request) as ScanRequest).scan;
    } catch {
      return FALLBACK_REPLY;
    }
    const name = String(scan?.payload);
    const known = this.#thread !== undefined || this.#held.has(name);
    if (this.#disabled || !known || typeof scan?.pattern !== 'string') return FALLBACK_REPLY;
    if (
      !Number.isInteger(scan.flags) ||
      translatePythonRegex(scan.pattern, scan.flags) === undefined
    ) {
      return FALLBACK_REPLY;
    }
    return this.#scan({
      type: 'scan',
      id: this.#nextId++,
      name,
      pattern: scan.pattern,
      flags: scan.flags,
    });
  }

  #scan(message: Extract<ToScanThread, { type: 'scan' }>): string {
    const thread = this.#start();
    let seen = Atomics.load(thread.signal, 0);
    thread.worker.postMessage(message);
    for (;;) {
      const received = receiveMessageOnPort(thread.replies);
      if (received !== undefined) {
        const reply = received.message as ScanReply;
        if (reply.id === message.id) return reply.reply;
        continue;
      }
      if (this.#interrupt !== undefined && Atomics.load(this.#interrupt, 0) !== 0) {
        this.#stop();
        return FALLBACK_REPLY;
      }
      Atomics.wait(thread.signal, 0, seen, INTERRUPT_POLL_MS);
      seen = Atomics.load(thread.signal, 0);
    }
  }

  #start(): ScanThread {
    if (this.#thread !== undefined) return this.#thread;
    const channel = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(SCAN_THREAD_URL, {
      workerData: { replies: channel.port2, signal } satisfies ScanThreadData,
      transferList: [channel.port2],
    });
    // The scan thread must never keep the interpreter process alive on its own.
    worker.unref();
    for (const [name, bytes] of this.#held) {
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      worker.postMessage(
        { type: 'hold', name, bytes } satisfies ToScanThread,
        whole ? [bytes.buffer as ArrayBuffer] : [],
      );
    }
    this.#held.clear();
    this.#thread = { worker, replies: channel.port1, signal };
    return this.#thread;
  }

  #stop(): void {
    this.#disabled = true;
    void this.#thread?.worker.terminate();
    this.#thread = undefined;
  }
}
