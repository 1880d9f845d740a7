/**
 * Entry point of a scan worker: holds copies of a sandbox's context payloads (long ones as shared
 * bytes until a scan first needs them) and runs the context helpers' scans with V8's regex engine.
 * It lives in its own thread so a runaway (catastrophic) pattern can be stopped by terminating it.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { JsonValue } from '@rlm/protocol';
import { toWireError } from '../wire-error.js';
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
/** Shared payloads stay bytes until a scan needs them: decoding is cheap, holding a copy is not. */
const payloads = new Map<string, string | SharedText>();
const lineIndexes = new Map<string, number[]>();

function starts(name: string, text: string): number[] {
  let index = lineIndexes.get(name);
  if (index === undefined) {
    index = lineStarts(text);
    lineIndexes.set(name, index);
  }
  return index;
}

function run(name: string, text: string, operation: ScanOperation): JsonValue {
  switch (operation.op) {
    case 'grep':
      return grep(text, globalPattern(operation.source, operation.flags), {
        context: operation.context,
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        starts: starts(name, text),
      }) as unknown as JsonValue;
    case 'find_all':
      return findAll(text, globalPattern(operation.source, operation.flags), {
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
      }) as unknown as JsonValue;
    case 'count':
      return countMatches(text, globalPattern(operation.source, operation.flags));
    case 'lines':
      return lineRange(text, { ...operation, starts: starts(name, text) });
    case 'chunk':
      return chunkBounds(text, {
        ...operation,
        starts: starts(name, text),
      }) as unknown as JsonValue;
  }
}

/** The payload's text, decoded on first use when it came shared; undefined when there is none. */
function payloadText(name: string): string | undefined {
  const payload = payloads.get(name);
  if (payload === undefined || typeof payload === 'string') return payload;
  const text = readSharedText(payload);
  payloads.set(name, text);
  return text;
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
  for (const operation of operations) run('', sample, operation);
  lineIndexes.delete('');
}
warmUp();

port.on('message', (message: ToScanWorker) => {
  if (message.type === 'payload') {
    payloads.set(message.name, message.text);
    lineIndexes.delete(message.name);
    // Decoded now, while the model thinks, rather than in the first scan.
    if (message.decodeNow) payloadText(message.name);
    return;
  }
  // Decoded before the scan's deadline starts: like the worker's start, it is not the pattern's cost.
  const text = payloadText(message.payload);
  port.postMessage({ type: 'started', requestId: message.requestId } satisfies FromScanWorker);
  let reply: FromScanWorker;
  try {
    if (text === undefined) throw new Error(`no payload named ${message.payload}`);
    reply = {
      type: 'result',
      requestId: message.requestId,
      ok: true,
      value: run(message.payload, text, message.operation),
    };
  } catch (error) {
    reply = { type: 'result', requestId: message.requestId, ok: false, error: toWireError(error) };
  }
  port.postMessage(reply);
});
