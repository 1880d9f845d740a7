/**
 * Entry point of a scan worker: holds copies of a sandbox's context payloads (long ones as shared
 * bytes until a scan first needs them) and runs the context helpers' scans with V8's regex engine,
 * for either REPL. It lives in its own thread so a runaway (catastrophic) pattern can be stopped
 * by terminating it.
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import { toWireError } from '../wire-error.js';
import type { FromScanWorker, ScanOperation, ToScanWorker } from './scan-messages.js';
import { runScan, ScanPayload } from './scan-payload.js';

if (parentPort === null) throw new Error('scan-worker must run in a worker_thread');
const port: MessagePort = parentPort;

const payloads = new Map<string, ScanPayload>();

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
  for (const operation of operations) runScan(new ScanPayload(sample, false), operation);
}
warmUp();

port.on('message', (message: ToScanWorker) => {
  if (message.type === 'payload') {
    const payload = new ScanPayload(message.text, message.codePoints === true);
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
      value: runScan(payload, message.operation),
    };
  } catch (error) {
    reply = { type: 'result', requestId: message.requestId, ok: false, error: toWireError(error) };
  }
  port.postMessage(reply);
});
