/**
 * The interpreter thread of an interpreter process: loads Pyodide, hardens it, installs the
 * scaffold and the host-call device, then runs one request at a time for the supervisor. It
 * serves one sandbox in its whole life (interpreters are never reused: a fresh one is a pool
 * hand-off). Imports only Node built-ins and this package's child modules.
 */
import { pathToFileURL } from 'node:url';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { PyodideAPI } from 'pyodide';
import {
  type BootConfig,
  type FromWorker,
  type InterpreterRequest,
  type LoadOptions,
  MAX_BRIDGE_CHARS,
  SHARED_SLOTS,
  type ToWorker,
} from './child-messages.js';
import { type DeviceFs, installDeviceBridge } from './device-bridge.js';
import { HostRegexScan } from './host-regex-scan.js';
import { capWasmMemory } from './memory-cap.js';
import { OutputCapture } from './output-capture.js';
import { PYTHON_HARDENING, PYTHON_SCAFFOLD } from './python-sources.generated.js';
import { prepareRealm, stripRealm } from './realm-guard.js';

if (parentPort === null) throw new Error('interpreter-worker must run in a worker_thread');
const port = parentPort;
const replies = (workerData as { replies: MessagePort }).replies;
const send = (message: FromWorker): void => port.postMessage(message);

/** Stdlib modules imported before a snapshot is taken, so every interpreter starts with them. */
const PRELOADED_MODULES = 'import ast, json, re, traceback, linecache, keyword, types, gc, asyncio';

type ScaffoldFunction = (...args: string[]) => string;

/** The scaffold's Python namespace, seen through Pyodide's proxy. */
interface ScaffoldScope {
  get(name: string): ScaffoldFunction;
}

interface Interpreter {
  py: PyodideAPI;
  call: (name: string, ...args: string[]) => string;
  interrupt: Int32Array;
  shared: Int32Array;
  stdout: OutputCapture;
  stderr: OutputCapture;
  maxOutputChars: number;
}

let interpreter: Interpreter | undefined;
/** `re.findall` over large ASCII payloads, on a scan thread of this process (see host-regex-scan.ts). */
const hostScan = new HostRegexScan();
/** Where a payload's bytes wait for the scaffold to read them (removed right after). */
const PAYLOAD_FILE = '/tmp/.rlm-payload';

async function load(options: LoadOptions, sharedBuffer: SharedArrayBuffer): Promise<void> {
  prepareRealm();
  capWasmMemory(options.memoryBytes);
  const module = (await import(pathToFileURL(`${options.pyodideDir}/pyodide.mjs`).href)) as {
    loadPyodide: (config: Record<string, unknown>) => Promise<PyodideAPI>;
  };
  const py = await module.loadPyodide({
    indexURL: `${options.pyodideDir}/`,
    env: {},
    jsglobals: Object.create(null),
    fullStdLib: false,
    ...(options.snapshot === null ? {} : { _loadSnapshot: aligned(options.snapshot) }),
    ...(options.makeSnapshot ? { _makeSnapshot: true } : {}),
  });
  let snapshot: Uint8Array | null = null;
  if (options.snapshot === null) {
    // A snapshot holds these already: the modules the scaffold uses and the scaffold itself, in a
    // module of its own (nothing of it is bound where model code runs).
    py.runPython(PRELOADED_MODULES);
    py.runPython("import types\n_rlm_scaffold = types.ModuleType('_rlm_scaffold')\ndel types");
    py.runPython(PYTHON_SCAFFOLD, {
      globals: scaffoldScope(py) as never,
      filename: '<rlm-scaffold>',
    });
    if (options.makeSnapshot) snapshot = py.makeMemorySnapshot();
  }
  const shared = new Int32Array(sharedBuffer);
  const stdout = new OutputCapture();
  const stderr = new OutputCapture();
  py.setStdout({ write: stdout.write, isatty: false });
  py.setStderr({ write: stderr.write, isatty: false });
  py.setStdin({ stdin: () => null });
  installDeviceBridge(py.FS as unknown as DeviceFs, {
    post: (callId, request) => send({ type: 'hostCall', callId, request }),
    replies,
    shared,
    answerHere: (request) => hostScan.answer(request),
  });
  py.runPython(PYTHON_HARDENING, { filename: '<rlm-hardening>' });
  py.unregisterJsModule('js');
  py.unregisterJsModule('pyodide_js');
  const scope = scaffoldScope(py);
  const functions = new Map<string, ScaffoldFunction>();
  const call = (name: string, ...args: string[]): string => {
    let fn = functions.get(name);
    if (fn === undefined) {
      fn = scope.get(name);
      functions.set(name, fn);
    }
    return fn(...args);
  };
  stripRealm();
  const interrupt = new Int32Array(sharedBuffer, SHARED_SLOTS.interrupt * 4, 1);
  hostScan.watch(interrupt);
  interpreter = {
    py,
    call,
    interrupt,
    shared,
    stdout,
    stderr,
    maxOutputChars: 0,
  };
  send({ type: 'loaded', snapshot });
}

/** The namespace of the `_rlm_scaffold` module (in Pyodide's `__main__`). */
function scaffoldScope(py: PyodideAPI): ScaffoldScope {
  const module = (py.globals as unknown as ScaffoldScope).get('_rlm_scaffold') as unknown as {
    __dict__: ScaffoldScope;
  };
  return module.__dict__;
}

/** Pyodide reads a snapshot through 32-bit views: one at an unaligned offset is copied first. */
function aligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
}

function boot(config: BootConfig): void {
  const it = current();
  it.maxOutputChars = config.maxOutputChars;
  it.call(
    'configure',
    JSON.stringify({
      functions: config.functions,
      helpers: config.helpers,
      meta: config.meta,
      maxAnswerChars: config.maxAnswerChars,
      maxErrorChars: config.maxOutputChars,
      maxBridgeChars: MAX_BRIDGE_CHARS,
    }),
  );
  for (const payload of config.payloads) {
    // Through a file of Emscripten's in-memory filesystem: Python decodes the UTF-8 bytes in C,
    // many times faster than converting a large JavaScript string through the FFI.
    it.py.FS.writeFile(PAYLOAD_FILE, payload.bytes);
    const held =
      payload.kind === 'text' && hostScan.hold(payload.name, payload.bytes, payload.ascii === true);
    it.call('load_payload', payload.name, payload.kind, PAYLOAD_FILE, held ? 'held' : '');
  }
}

function current(): Interpreter {
  if (interpreter === undefined) throw new Error('the interpreter is not loaded');
  return interpreter;
}

/** Runs one block: model code with interrupts on, then the scaffold's bookkeeping with them off. */
function execute(code: string): unknown {
  const it = current();
  it.stdout.reset(it.maxOutputChars);
  it.stderr.reset(it.maxOutputChars);
  Atomics.store(it.interrupt, 0, 0);
  it.py.setInterruptBuffer(it.interrupt);
  Atomics.store(it.shared, SHARED_SLOTS.phase, 1);
  let escaped = false;
  try {
    it.call('run_user', code);
  } catch (error) {
    // A second interrupt can land in run_user's own error handling: the block was interrupted.
    if (!isPythonError(error)) throw error;
    escaped = true;
  } finally {
    Atomics.store(it.shared, SHARED_SLOTS.phase, 0);
    it.py.setInterruptBuffer(undefined as unknown as Int32Array);
    Atomics.store(it.interrupt, 0, 0);
  }
  const outcome = JSON.parse(it.call('finish_block')) as Record<string, unknown>;
  if (escaped && outcome['error'] === null) {
    outcome['error'] = {
      name: 'KeyboardInterrupt',
      message: '',
      line: null,
      traceback: 'KeyboardInterrupt\n',
    };
  }
  const out = it.stdout.take();
  const err = it.stderr.take();
  return {
    ...outcome,
    stdout: out.text,
    stderr: err.text,
    droppedStdout: out.dropped,
    droppedStderr: err.dropped,
  };
}

function isPythonError(error: unknown): boolean {
  return error instanceof Error && error.constructor.name === 'PythonError';
}

function handle(request: InterpreterRequest): unknown {
  const it = current();
  switch (request.type) {
    case 'execute':
      return execute(request.code);
    case 'getVariable':
      return JSON.parse(it.call('get_variable', request.name));
    case 'setVariable':
      hostScan.release(request.name);
      return JSON.parse(it.call('set_variable', request.name, request.json));
    case 'listVariables':
      return JSON.parse(it.call('list_variables'));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 2_000) : String(error);
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'load') {
    load(message.options, message.shared).catch((error: unknown) =>
      send({ type: 'failed', message: describe(error) }),
    );
    return;
  }
  try {
    const value = message.type === 'boot' ? boot(message.config) : handle(message.request);
    send({ type: 'done', ok: true, value: value ?? null });
  } catch (error) {
    send({ type: 'done', ok: false, message: describe(error), fatal: !isPythonError(error) });
  }
});
