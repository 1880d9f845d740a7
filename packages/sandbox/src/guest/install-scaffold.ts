import { codedError, describeError } from './guest-errors.js';
import { FINAL, FINAL_VAR, finalState, SHOW_VARS, takeFinal } from './guest-final.js';
import { type HostCall, helperFunction, hostFunction } from './guest-host-calls.js';
import {
  deepFreeze,
  defineHelper,
  globalSlot,
  listGlobals,
  listVariables,
  locals,
  localsOfListing,
  pin,
  readVariable,
  reclaimGlobals,
  recordBaseline,
  restore,
  setJson,
  setVariable,
} from './guest-variables.js';
import { formatArgs, inspect } from './inspect-value.js';
import { jsonText, stringJson } from './json-text.js';
import { installNativeStrings, type NativeCall, replaceNativeStrings } from './native-strings.js';
import {
  closeOutput,
  emptyStream,
  isEmpty,
  openOutput,
  type StreamName,
  streams,
  streamText,
  takeOutput,
  write,
} from './output-streams.js';
import { freeze, hasOwn, jsonParse, lookupGetter, record } from './primordials.js';
import { trackProxies } from './proxy-tracking.js';
import { configureLimits, type ScaffoldConfig } from './scaffold-settings.js';

// What depends on no sandbox's settings is done when the prelude is evaluated, not per sandbox:
// an engine started from the prelude's image (see prelude-image.ts) has it done already. No
// guest code runs before `installScaffold`, so none can tell when it was done.
trackProxies();
replaceNativeStrings();

/**
 * The guest prelude's entry point. The build turns the guest modules into one script that
 * evaluates to this function (see scripts/embed-script.mjs); the engine evaluates it once per
 * sandbox, before any user code, and calls it with the raw host-call function, the JSON config and
 * the synchronous host function of the native string methods (see native-strings.ts).
 * It defines the globals guest code sees and returns the internals only the host can reach.
 */
export function installScaffold(
  hostCall: HostCall,
  configJson: string,
  native: NativeCall,
): ScaffoldInternals {
  const config = jsonParse(configJson) as ScaffoldConfig;
  configureLimits(config);
  installNativeStrings(native, config.nativeStringMinChars);
  recordBaseline(config.reserved);
  const consoleObject = makeConsole();
  pin('console', consoleObject);
  pin('print', consoleObject.log);
  pin('FINAL', FINAL);
  pin('FINAL_VAR', FINAL_VAR);
  pin('SHOW_VARS', SHOW_VARS);
  pin('__rlm', deepFreeze(config.meta));
  for (let index = 0; index < config.functions.length; index++) {
    const name = config.functions[index] as string;
    pin(name, hostFunction(hostCall, name));
  }
  for (let index = 0; index < config.helpers.length; index++) {
    const name = config.helpers[index] as string;
    defineHelper(name, helperFunction(hostCall, name));
  }
  return freeze(internals());
}

function logTo(stream: StreamName): Log {
  return (...args: unknown[]) => write(stream, formatArgs(args) + '\n');
}

type Log = (...args: unknown[]) => void;
interface GuestConsole {
  log: Log;
  info: Log;
  debug: Log;
  dir: Log;
  table: Log;
  warn: Log;
  error: Log;
  assert: (condition: unknown, ...rest: unknown[]) => void;
}

/** `console`: an ordinary frozen object (a literal defines its properties without setters). */
function makeConsole(): GuestConsole {
  return freeze({
    log: logTo('stdout'),
    info: logTo('stdout'),
    debug: logTo('stdout'),
    dir: logTo('stdout'),
    table: logTo('stdout'),
    warn: logTo('stderr'),
    error: logTo('stderr'),
    assert: (condition: unknown, ...rest: unknown[]) => {
      if (condition) return;
      write('stderr', 'Assertion failed' + (rest.length > 0 ? ': ' + formatArgs(rest) : '') + '\n');
    },
  });
}

/** What the host reads at the end of a block (as JSON). */
export interface BlockEnd {
  stdout: string;
  stderr: string;
  droppedStdout: number;
  droppedStderr: number;
  finalAnswer: string | null;
  /** Scaffold names a block rebound that could not be put back. */
  unrestored: string[];
}

/** What the host reads when a block that completed ends (as JSON). */
export interface FinishedBlock {
  /** `{ name: type }` of the user variables. */
  locals: Record<string, string>;
  end: BlockEnd;
  /**
   * How the globals were found: how many own keys the global object had when they were listed
   * (no guest code ran in the call before that), -1 when guest code may have run before they
   * were listed, -2 when the last listing was reused (the host said no key changed).
   */
  listed: number;
}

/** The functions the host calls; none is reachable from a global. */
export interface ScaffoldInternals {
  /**
   * Starts a block: output is collected again. A block that `finishBlock` ended starts the next
   * one itself, so the host calls this only after any other end (or a read in between).
   */
  beginBlock(): void;
  /** Stops collecting output (guest code run now prints nowhere) until `beginBlock`. */
  closeOutput(): void;
  /** Prints the block's completion value (`{ value }` from the async evaluation), once per block. */
  formatCompletion(holder: { value: unknown }): void;
  /**
   * Ends a block that completed, in one call: prints its completion value, names its variables'
   * types, restores scaffold names, takes the answer and the output (JSON of `FinishedBlock`).
   * `keysUnchanged`: the host saw that the global object's keys are those the guest last listed,
   * so that listing is reused unless guest code ran in this call before it; `namesSettled`: no
   * key or flag of the global object changed since the last call put every scaffold name back,
   * so only their values need a look (see global-keys-watch.ts).
   * Guest code may run in it, so the host calls it inside the block's slice. Until its last step
   * it changes nothing the step-by-step calls (`formatCompletion`, `locals`, `endBlock`) would
   * not redo the same way, so when it is stopped partway the host falls back to them. Its last
   * step also starts the next block, as `beginBlock` would (saving the host that call): output
   * stays open for it, so the host closes it (`closeOutput`) before guest code runs in between.
   */
  finishBlock(holder: { value: unknown }, keysUnchanged: boolean, namesSettled: boolean): string;
  /** A thrown value, described and cut to the caps (JSON of `DescribedError`). */
  describeError(error: unknown): string;
  /** `{ name: type }` of the user variables; `basic` runs no guest code at all. */
  locals(basic: boolean): string;
  /** Ends a block: restores scaffold names, takes the answer and the output (JSON of `BlockEnd`). */
  endBlock(): string;
  /** Host reads between blocks: both close output first (the getters they reach print nowhere). */
  listVariables(withSizes: boolean): string;
  readVariable(name: string, maxChars: number): unknown[];
  setVariable(name: string, value: unknown): void;
  setJson(name: string, json: string): void;
  alias(to: string, from: string): void;
  /** Empties the variables created since the last block ended; their names (JSON). */
  reclaimGlobals(): string;
  /** Turns a host result (JSON text) into the value a guest promise resolves with. */
  parseJson(text: string): unknown;
  /** The error a host call's promise rejects with (`code` '' for none). */
  hostError(name: string, message: string, code: string): Error;
}

/** Whether the current block's completion value was printed (it is printed once). */
const completion = record<{ printed: boolean }>();
completion.printed = false;

/** Prints the completion value; whether printing it may have run guest code (an object's). */
function formatCompletion(holder: { value: unknown }): boolean {
  if (completion.printed) return false;
  // QuickJS fills the holder with an assignment, which a guest setter at Object.prototype.value
  // can intercept (and then define an accessor on it): read only what it really holds. The holder
  // is an ordinary object, so its own property is read without a descriptor when it has no getter.
  const value =
    hasOwn(holder, 'value') && lookupGetter(holder, 'value') === undefined
      ? holder.value
      : undefined;
  if (value !== undefined) {
    let text: string;
    try {
      text = inspect(value);
    } catch (error) {
      // A trap or getter threw: say so. (A stopped block's interrupt cannot be caught here.)
      text = '[the value could not be printed: ' + formatArgs([error]) + ']';
    }
    write('stdout', text + '\n');
  }
  completion.printed = true;
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

function finishBlock(
  holder: { value: unknown },
  keysUnchanged: boolean,
  namesSettled: boolean,
): string {
  const ranGuestCode = formatCompletion(holder);
  let listed = -2;
  if (ranGuestCode || !keysUnchanged) {
    const keys = listGlobals();
    listed = ranGuestCode ? -1 : keys;
  }
  const localsJson = localsOfListing(false);
  const unrestored = restore(namesSettled);
  const out = streams.stdout;
  const err = streams.stderr;
  // A stream the block never wrote to is kept: it is as empty as a new one.
  const stdout = isEmpty(out) ? out : emptyStream();
  const stderr = isEmpty(err) ? err : emptyStream();
  const answer = finalState.answer;
  // The JSON of `FinishedBlock`, written directly: strings through `stringJson`, the dropped counts
  // (whole numbers, never negative) as they print, and the usual empty answer and list as literals.
  const text =
    '{"locals":' +
    localsJson +
    ',"end":{"stdout":' +
    stringJson(streamText(out)) +
    ',"stderr":' +
    stringJson(streamText(err)) +
    ',"droppedStdout":' +
    out.dropped +
    ',"droppedStderr":' +
    err.dropped +
    ',"finalAnswer":' +
    (answer === null ? 'null' : stringJson(answer)) +
    ',"unrestored":' +
    (unrestored.length === 0 ? '[]' : jsonText(unrestored)) +
    '},"listed":' +
    listed +
    '}';
  // The commit: plain assignments to prototype-less records, no call in between. The interrupt
  // handler is polled only at calls and loops, so the answer and the output are taken together
  // or (when it stops this call earlier) not at all. It also begins the next block (see
  // `ScaffoldInternals.finishBlock`): output stays open, the next completion is not printed yet.
  finalState.answer = null;
  streams.stdout = stdout;
  streams.stderr = stderr;
  completion.printed = false;
  return text;
}

function internals(): ScaffoldInternals {
  const out = record<ScaffoldInternals>();
  out.beginBlock = () => {
    completion.printed = false;
    openOutput();
  };
  out.closeOutput = closeOutput;
  out.formatCompletion = (holder) => {
    formatCompletion(holder);
  };
  out.finishBlock = finishBlock;
  out.describeError = describeError;
  out.locals = locals;
  out.endBlock = () => {
    const end = record<BlockEnd>();
    end.unrestored = restore(false);
    end.finalAnswer = takeFinal();
    const output = takeOutput();
    end.stdout = output.stdout;
    end.stderr = output.stderr;
    end.droppedStdout = output.droppedStdout;
    end.droppedStderr = output.droppedStderr;
    return jsonText(end);
  };
  out.listVariables = (withSizes) => {
    closeOutput();
    return listVariables(withSizes);
  };
  out.readVariable = (name, maxChars) => {
    closeOutput();
    return readVariable(name, maxChars);
  };
  out.setVariable = setVariable;
  out.setJson = setJson;
  out.alias = (to, from) => setVariable(to, globalSlot(from).value);
  out.reclaimGlobals = reclaimGlobals;
  out.parseJson = (text) => jsonParse(text);
  out.hostError = (name, message, code) =>
    codedError(name, message, code === '' ? undefined : code);
  return out;
}
