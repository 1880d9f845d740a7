/**
 * Entry point of an interpreter process (started by host/spawn-interpreter.ts under Node's
 * permission model). Its main thread never runs model code: it relays messages between the
 * parent (IPC) and the interpreter worker, relays the worker's host calls (the worker waits in
 * `Atomics.wait` meanwhile), and keeps each block's clocks. When a block runs past its CPU or
 * wall-clock limit, or is aborted, it writes SIGINT into Pyodide's interrupt buffer (Python raises
 * `KeyboardInterrupt`), repeats that while the block goes on, and after `INTERRUPT_GRACE_MS`
 * terminates the worker: the parent then replaces this process with a fresh interpreter.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type {
  BootConfig,
  FromSupervisor,
  FromWorker,
  HostReplyMessage,
  InterpreterRequest,
  RawBlockResult,
  StopKind,
  ToSupervisor,
} from './child-messages.js';
import { SHARED_BYTES, SHARED_SLOTS } from './child-messages.js';

/** How long an interrupted block may take to stop before its worker is terminated. */
const INTERRUPT_GRACE_MS = 1_000;
/** How often SIGINT is written again while an interrupted block goes on. */
const INTERRUPT_REPEAT_MS = 50;
/** How often the process checks that its parent is still there. */
const PARENT_CHECK_MS = 1_000;
/** Native stack of the interpreter thread (CPython's recursion runs on it). */
const WORKER_STACK_MB = 16;

const sendParent = (message: FromSupervisor): void => {
  process.send?.(message);
};

const sharedBuffer = new SharedArrayBuffer(SHARED_BYTES);
const shared = new Int32Array(sharedBuffer);
const channel = new MessageChannel();
const worker = new Worker(new URL('./interpreter-worker.js', import.meta.url), {
  workerData: { replies: channel.port2 },
  transferList: [channel.port2],
  resourceLimits: { stackSizeMb: WORKER_STACK_MB },
  stdout: true,
  stderr: true,
});

/** The request the worker is running, with its clocks. */
interface Running {
  id: number;
  request: InterpreterRequest;
  limits: BootConfig | undefined;
  stop: StopKind | null;
  /** Host call in flight (the worker is blocked on it; CPU time does not run meanwhile). */
  hostCall: number | null;
  cpuUsedMs: number;
  sliceStart: number;
  wallTimer: NodeJS.Timeout | undefined;
  cpuTimer: NodeJS.Timeout | undefined;
  repeatTimer: NodeJS.Timeout | undefined;
  graceTimer: NodeJS.Timeout | undefined;
}

let config: BootConfig | undefined;
let running: Running | undefined;
let dead = false;

function replyToWorker(callId: number, reply: string): void {
  channel.port1.postMessage({ callId, reply } satisfies HostReplyMessage);
  Atomics.add(shared, SHARED_SLOTS.reply, 1);
  Atomics.notify(shared, SHARED_SLOTS.reply);
}

/** Writes SIGINT, but only while model code runs (never into the scaffold's own bookkeeping). */
function interrupt(): void {
  if (Atomics.load(shared, SHARED_SLOTS.phase) === 1) {
    Atomics.store(shared, SHARED_SLOTS.interrupt, 2);
  }
}

/** Stops the running block for `kind`: interrupts it, answers a pending host call, arms the grace. */
function stop(block: Running, kind: StopKind): void {
  if (block.stop !== null) return;
  block.stop = kind;
  clearTimeout(block.wallTimer);
  clearTimeout(block.cpuTimer);
  if (block.hostCall !== null) {
    sendParent({ type: 'hostCancel', callId: block.hostCall });
    replyToWorker(block.hostCall, JSON.stringify({ interrupted: kind }));
    block.hostCall = null;
  }
  interrupt();
  block.repeatTimer = setInterval(interrupt, INTERRUPT_REPEAT_MS);
  block.graceTimer = setTimeout(() => loseWorker(block, 'unresponsive'), INTERRUPT_GRACE_MS);
}

/** Arms the CPU timer for what the block has left of its CPU slice. */
function resumeCpu(block: Running): void {
  if (block.limits === undefined || block.stop !== null) return;
  block.sliceStart = performance.now();
  const left = Math.max(0, block.limits.cpuSliceMs - block.cpuUsedMs);
  block.cpuTimer = setTimeout(() => stop(block, 'cpu'), left);
}

function pauseCpu(block: Running): void {
  block.cpuUsedMs += performance.now() - block.sliceStart;
  clearTimeout(block.cpuTimer);
}

function loseWorker(block: Running, reason: 'unresponsive' | 'fatal', detail = ''): void {
  finish(block);
  dead = true;
  void worker.terminate();
  const lost: RawBlockResult = {
    stdout: '',
    stderr: '',
    droppedStdout: 0,
    droppedStderr: 0,
    error: null,
    locals: {},
    finalAnswer: null,
    cleared: [],
    stop: block.stop,
    lost: {
      reason,
      detail: detail || `the block did not stop within ${INTERRUPT_GRACE_MS} ms of its interrupt`,
    },
  };
  sendParent({ type: 'reply', id: block.id, ok: true, value: lost });
}

function finish(block: Running): void {
  clearTimeout(block.wallTimer);
  clearTimeout(block.cpuTimer);
  clearInterval(block.repeatTimer);
  clearTimeout(block.graceTimer);
  if (running === block) running = undefined;
}

function startRequest(id: number, request: InterpreterRequest): void {
  const block: Running = {
    id,
    request,
    limits: request.type === 'execute' ? config : undefined,
    stop: null,
    hostCall: null,
    cpuUsedMs: 0,
    sliceStart: performance.now(),
    wallTimer: undefined,
    cpuTimer: undefined,
    repeatTimer: undefined,
    graceTimer: undefined,
  };
  running = block;
  if (block.limits !== undefined) {
    block.wallTimer = setTimeout(() => stop(block, 'wall'), block.limits.blockTimeoutMs);
    resumeCpu(block);
  }
  worker.postMessage({ type: 'request', request });
}

function onWorkerMessage(message: FromWorker): void {
  if (message.type === 'loaded' || message.type === 'failed') {
    sendParent(message);
    return;
  }
  if (message.type === 'hostCall') {
    const block = running;
    // Host functions serve blocks only: never a variable read, never a stopped block.
    if (block === undefined || block.stop !== null || block.request.type !== 'execute') {
      replyToWorker(message.callId, JSON.stringify({ interrupted: block?.stop ?? 'aborted' }));
      return;
    }
    pauseCpu(block);
    block.hostCall = message.callId;
    sendParent({ type: 'hostCall', callId: message.callId, request: message.request });
    return;
  }
  const block = running;
  if (block === undefined) {
    // The answer to a boot.
    sendParent(message.ok ? { type: 'ready' } : { type: 'failed', message: message.message });
    return;
  }
  if (!message.ok && message.fatal) {
    loseWorker(block, 'fatal', message.message);
    return;
  }
  finish(block);
  if (!message.ok) {
    sendParent({ type: 'reply', id: block.id, ok: false, message: message.message });
    return;
  }
  const value =
    block.request.type === 'execute'
      ? { ...(message.value as object), stop: block.stop, lost: null }
      : message.value;
  sendParent({ type: 'reply', id: block.id, ok: true, value });
}

function onParentMessage(message: ToSupervisor): void {
  if (dead) return;
  switch (message.type) {
    case 'load': {
      // The snapshot (about 21 MB) moves to the interpreter thread rather than being copied.
      const snapshot = message.options.snapshot;
      const movable =
        snapshot !== null &&
        snapshot.byteOffset === 0 &&
        snapshot.byteLength === snapshot.buffer.byteLength;
      worker.postMessage(
        { type: 'load', options: message.options, shared: sharedBuffer },
        movable ? [snapshot.buffer as ArrayBuffer] : [],
      );
      return;
    }
    case 'boot':
      config = message.config;
      // Payload bytes that own their whole buffer move to the interpreter thread instead of
      // being copied again (a small one may share a pooled buffer, which must stay here).
      worker.postMessage(
        { type: 'boot', config: message.config },
        message.config.payloads
          .map((payload) => payload.bytes)
          .filter((bytes) => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength)
          .map((bytes) => bytes.buffer as ArrayBuffer),
      );
      return;
    case 'request':
      startRequest(message.id, message.request);
      return;
    case 'abort':
      if (running?.id === message.id) stop(running, 'aborted');
      return;
    case 'hostReply': {
      const block = running;
      if (block === undefined || block.hostCall !== message.callId) return;
      block.hostCall = null;
      replyToWorker(message.callId, message.reply);
      resumeCpu(block);
      return;
    }
  }
}

worker.on('message', onWorkerMessage);
worker.on('error', (error) => {
  if (running !== undefined) loseWorker(running, 'fatal', `${error.name}: ${error.message}`);
  else sendParent({ type: 'failed', message: `${error.name}: ${error.message}` });
  dead = true;
});
worker.on('exit', () => {
  if (running !== undefined) loseWorker(running, 'fatal', 'the interpreter thread exited');
  dead = true;
});
process.on('message', onParentMessage);
// The parent is gone (or let this process go): nothing is left to serve.
process.on('disconnect', () => process.exit(0));
// A parent that dies while this process is still starting goes unnoticed by the IPC channel;
// being adopted by another process (the parent passes its pid as the first argument) is the sign.
const parentPid = Number(process.argv[2]);
const orphaned = (): boolean => !process.connected || process.ppid !== parentPid;
if (orphaned()) process.exit(0);
setInterval(() => {
  if (orphaned()) process.exit(0);
}, PARENT_CHECK_MS);
