/**
 * Entry point of a scan worker: holds copies of a sandbox's context payloads (long ones as shared
 * bytes until a scan first needs them) and runs the context helpers' scans with V8's regex engine,
 * for either REPL. It lives in its own thread so a runaway (catastrophic) pattern can be stopped
 * by terminating it.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { JsonValue } from '@rlm/protocol';
import { toWireError } from '../wire-error.js';
import { CodePointOffsets } from './code-point-offsets.js';
import type { FromScanWorker, ScanOperation, ToScanWorker } from './scan-messages.js';
import {
  chunkBounds,
  countMatches,
  findAll,
  globalPattern,
  grep,
  lineRange,
  lineStarts,
} from './scan-operations.js';
import { readSharedText, type SharedText } from './shared-text.js';

if (parentPort === null) throw new Error('scan-worker must run in a worker_thread');
const port: MessagePort = parentPort;

/**
 * One payload: shared bytes stay bytes until a scan needs the text (decoding is cheap, holding a
 * copy is not); the line index and code-point offsets are built on first use.
 */
class Payload {
  #source: string | SharedText;
  readonly #codePoints: boolean;
  #starts: number[] | undefined;
  #offsets: CodePointOffsets | undefined;

  constructor(source: string | SharedText, codePoints: boolean) {
    this.#source = source;
    this.#codePoints = codePoints;
  }

  get text(): string {
    if (typeof this.#source !== 'string') this.#source = readSharedText(this.#source);
    return this.#source;
  }

  get starts(): number[] {
    this.#starts ??= lineStarts(this.text);
    return this.#starts;
  }

  /** Code-point offsets for a Python payload; none (UTF-16 offsets) for a JavaScript one. */
  get offsets(): CodePointOffsets | undefined {
    if (!this.#codePoints) return undefined;
    this.#offsets ??= new CodePointOffsets(this.text);
    return this.#offsets;
  }
}

const payloads = new Map<string, Payload>();

function run(payload: Payload, operation: ScanOperation): JsonValue {
  const { text } = payload;
  switch (operation.op) {
    case 'grep':
      return grep(text, globalPattern(operation.source, operation.flags), {
        context: operation.context,
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        starts: payload.starts,
      }) as unknown as JsonValue;
    case 'find_all':
      return findAll(text, globalPattern(operation.source, operation.flags), {
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        ...withOffsets(payload),
      }) as unknown as JsonValue;
    case 'count':
      return countMatches(text, globalPattern(operation.source, operation.flags));
    case 'lines':
      return lineRange(text, { ...operation, starts: payload.starts });
    case 'chunk':
      return chunkBounds(text, {
        size: operation.size,
        overlap: operation.overlap,
        maxItems: operation.maxItems,
        starts: payload.starts,
        ...withOffsets(payload),
      }) as unknown as JsonValue;
  }
}

function withOffsets(payload: Payload): { offsets?: CodePointOffsets } {
  const offsets = payload.offsets;
  return offsets === undefined ? {} : { offsets };
}

/**
 * Runs every scan once on a small text, so that the first real scan finds its functions compiled
 * (lazily compiled code and cold inline caches cost a first call several milliseconds).
 */
function warmUp(): void {
  const sample = 'first line NEEDLE\nsecond line\r\nthird NEEDLE line\n'.repeat(8);
  const operations: ScanOperation[] = [
    { op: 'grep', source: 'NEEDLE', flags: '', context: 1, maxItems: 2, maxChars: 200 },
    { op: 'find_all', source: 'N(EE)DLE', flags: '', maxItems: 2, maxChars: 200 },
    { op: 'count', source: 'NEEDLE', flags: '' },
    { op: 'lines', start: 2, end: 3, maxChars: 200 },
    { op: 'chunk', size: 40, overlap: 4, maxItems: 100 },
  ];
  for (const operation of operations) run(new Payload(sample, false), operation);
}
warmUp();

port.on('message', (message: ToScanWorker) => {
  if (message.type === 'payload') {
    const payload = new Payload(message.text, message.codePoints === true);
    payloads.set(message.name, payload);
    // A context long enough to start this thread with its sandbox: decoded while the model thinks.
    if (message.decodeNow === true) void payload.text;
    return;
  }
  const payload = payloads.get(message.payload);
  // Decoded before the scan's deadline starts: like the worker's start, it is not the pattern's cost.
  if (payload !== undefined) void payload.text;
  port.postMessage({ type: 'started', requestId: message.requestId } satisfies FromScanWorker);
  let reply: FromScanWorker;
  try {
    if (payload === undefined) throw new Error(`no payload named ${message.payload}`);
    reply = {
      type: 'result',
      requestId: message.requestId,
      ok: true,
      value: run(payload, message.operation),
    };
  } catch (error) {
    reply = { type: 'result', requestId: message.requestId, ok: false, error: toWireError(error) };
  }
  port.postMessage(reply);
});
