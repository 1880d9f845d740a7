/**
 * Entry point of a scan worker: holds the text of one sandbox's context payloads and runs the
 * helpers' scans. It is a thread of its own so a runaway (catastrophic) pattern can be stopped by
 * terminating it.
 */
import { parentPort } from 'node:worker_threads';
import type { JsonValue } from '@rlm/protocol';
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

if (parentPort === null) throw new Error('scan-worker must run in a worker_thread');
const port = parentPort;

/** A payload's text with the indexes built on first use. */
class Payload {
  readonly text: string;
  #starts: number[] | undefined;
  #offsets: CodePointOffsets | undefined;

  constructor(text: string) {
    this.text = text;
  }

  get starts(): number[] {
    this.#starts ??= lineStarts(this.text);
    return this.#starts;
  }

  get offsets(): CodePointOffsets {
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
        ...operation,
        starts: payload.starts,
      }) as unknown as JsonValue;
    case 'find_all':
      return findAll(text, globalPattern(operation.source, operation.flags), {
        ...operation,
        offsets: payload.offsets,
      }) as unknown as JsonValue;
    case 'count':
      return countMatches(text, globalPattern(operation.source, operation.flags));
    case 'lines':
      return lineRange(text, { ...operation, starts: payload.starts });
    case 'chunk':
      return chunkBounds(text, {
        ...operation,
        starts: payload.starts,
        offsets: payload.offsets,
      }) as unknown as JsonValue;
  }
}

port.on('message', (message: ToScanWorker) => {
  if (message.type === 'payload') {
    payloads.set(message.name, new Payload(message.text));
    return;
  }
  port.postMessage({ type: 'started', requestId: message.requestId } satisfies FromScanWorker);
  let reply: FromScanWorker;
  try {
    const payload = payloads.get(message.payload);
    if (payload === undefined) throw new Error(`no payload named ${message.payload}`);
    const value = run(payload, message.operation);
    reply = { type: 'result', requestId: message.requestId, ok: true, value };
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    reply = { type: 'result', requestId: message.requestId, ok: false, message: text };
  }
  port.postMessage(reply);
});
