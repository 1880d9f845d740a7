/**
 * Entry point of a worker-isolated sandbox: owns one QuickJsEngine, answers requests from the
 * host, and proxies the guest's host calls back to it by message passing. The boot data comes as
 * the first message rather than `workerData`, so the worker can be started (and its modules
 * imported) before anyone asks for a sandbox (see spare-worker.ts).
 */
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { JsonValue } from '@rlm/protocol';
import type { HostCaller } from './engine/host-bridge.js';
import { QuickJsEngine } from './engine/quickjs-engine.js';
import { fromWireError, toWireError } from './wire-error.js';
import type { FromWorker, Request, ToWorker, WorkerBoot } from './worker-messages.js';

if (parentPort === null) throw new Error('sandbox-worker must run in a worker_thread');
const port: MessagePort = parentPort;

const send = (message: FromWorker): void => port.postMessage(message);
const pendingCalls = new Map<
  number,
  { resolve: (value: JsonValue | undefined) => void; reject: (error: Error) => void }
>();
const blockControllers = new Map<number, AbortController>();
let nextCallId = 1;

const caller: HostCaller = (name, args, signal) =>
  new Promise((resolve, reject) => {
    const callId = nextCallId++;
    const onAbort = (): void => {
      pendingCalls.delete(callId);
      send({ type: 'hostCancel', callId });
      reject(signal.reason);
    };
    pendingCalls.set(callId, {
      resolve: (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      reject: (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    });
    signal.addEventListener('abort', onAbort, { once: true });
    send({ type: 'hostCall', callId, name, args });
  });

/** The worker's engine and the flag the host sets to abort a running block. */
interface Booted {
  engine: QuickJsEngine;
  abortFlag: Int32Array;
}

async function handle(
  { engine, abortFlag }: Booted,
  id: number,
  request: Request,
): Promise<unknown> {
  switch (request.type) {
    case 'execute': {
      const controller = new AbortController();
      blockControllers.set(id, controller);
      try {
        return await engine.execute(request.code, {
          signal: controller.signal,
          interrupted: () => Atomics.load(abortFlag, 0) === id,
        });
      } finally {
        blockControllers.delete(id);
      }
    }
    case 'getVariable':
      return engine.getVariable(request.name);
    case 'setVariable':
      engine.setVariable(request.name, request.value);
      return null;
    case 'listVariables':
      return engine.listVariables();
    case 'dispose':
      engine.dispose();
      return null;
  }
}

async function main(boot: WorkerBoot): Promise<void> {
  const abortFlag = new Int32Array(boot.abortFlag);
  let engine: QuickJsEngine;
  try {
    engine = await QuickJsEngine.create(boot.init, caller);
  } catch (error) {
    send({ type: 'initFailed', error: toWireError(error) });
    return;
  }
  // Requests run one at a time (the host serialises them too); aborts and host results
  // arrive while a block awaits, so they are handled immediately.
  let tail: Promise<unknown> = Promise.resolve();
  port.on('message', (message: ToWorker) => {
    if (message.type === 'abort') {
      blockControllers.get(message.id)?.abort();
      return;
    }
    if (message.type === 'hostResult') {
      const pending = pendingCalls.get(message.callId);
      pendingCalls.delete(message.callId);
      if (message.ok) pending?.resolve(message.value);
      else pending?.reject(fromWireError(message.error));
      return;
    }
    const { id, request } = message;
    tail = tail.then(async () => {
      try {
        const value = await handle({ engine, abortFlag }, id, request);
        send({ type: 'reply', id, ok: true, value });
      } catch (error) {
        send({ type: 'reply', id, ok: false, error: toWireError(error) });
      }
      if (request.type === 'dispose') port.close();
    });
  });
  send({ type: 'ready' });
}

port.once('message', (boot: WorkerBoot) => void main(boot));
