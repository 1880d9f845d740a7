/**
 * JavaScript evaluated once inside every sandbox, before any user code. It is a function
 * expression; the host calls it with the raw host-call function and a JSON config, and keeps the
 * returned object of internals. Internals are reachable only from the host (never from a global),
 * and they capture the builtins they need up front, so later prototype pollution or rebinding by
 * user code cannot change how the scaffold behaves towards the host.
 *
 * Written as plain ES2020 without template literals, so it can live in a TypeScript string.
 */
export const GUEST_PRELUDE = String.raw`(function (hostCall, configJson) {
  'use strict';
  var G = globalThis;
  var O = Object;
  var defineProperty = O.defineProperty;
  var getOwnPropertyNames = O.getOwnPropertyNames;
  var getOwnPropertyDescriptor = O.getOwnPropertyDescriptor;
  var getPrototypeOf = O.getPrototypeOf;
  var objectKeys = O.keys;
  var freeze = O.freeze;
  var isFrozen = O.isFrozen;
  var create = O.create;
  var apply = Reflect.apply;
  var ownKeys = Reflect.ownKeys;
  var jsonStringify = JSON.stringify;
  var jsonParse = JSON.parse;
  var isArray = Array.isArray;
  var StringCtor = String;
  var objectToString = O.prototype.toString;
  var functionToString = Function.prototype.toString;
  var errorToString = Error.prototype.toString;
  var promiseThen = Promise.prototype.then;
  var PromiseCtor = Promise;
  var promiseReject = Promise.reject;
  var MapCtor = Map;
  var SetCtor = Set;
  var mapEntries = Map.prototype.entries;
  var setValues = Set.prototype.values;
  var mapSize = getOwnPropertyDescriptor(Map.prototype, 'size').get;
  var setSize = getOwnPropertyDescriptor(Set.prototype, 'size').get;
  var dateToISOString = Date.prototype.toISOString;
  var DateCtor = Date;
  var RegExpCtor = RegExp;
  var ErrorCtor = Error;
  var regexpToString = RegExp.prototype.toString;
  var stringSlice = String.prototype.slice;
  var stringRepeat = String.prototype.repeat;
  var stringIndexOf = String.prototype.indexOf;
  var stringIsWellFormed = String.prototype.isWellFormed;
  var stringReplace = String.prototype.replace;
  var arrayJoin = Array.prototype.join;
  var arrayPush = Array.prototype.push;
  var regexpTest = RegExp.prototype.test;
  var symbolToString = Symbol.prototype.toString;
  var isNaNFn = isNaN;
  var mathMin = Math.min;

  var config = jsonParse(configJson);
  var maxOutputChars = config.maxOutputChars;
  var reserved = create(null);
  for (var r = 0; r < config.reserved.length; r++) reserved[config.reserved[r]] = true;
  var NUMBERED = /^(context|history)_\d+$/;
  var IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
  var baseline = create(null);
  var baseNames = getOwnPropertyNames(G);
  for (var b = 0; b < baseNames.length; b++) baseline[baseNames[b]] = true;
  // Helpers are ordinary names a model may rebind (lines = text.split(...)); they are hidden from
  // the variable list only while they still hold the helper.
  var helpers = create(null);
  // Scaffold values restored after every block: name -> value.
  var pinned = create(null);

  function call(fn, self, args) { return apply(fn, self, args || []); }
  function test(re, s) { return call(regexpTest, re, [s]); }
  function isScaffold(name) { return reserved[name] === true || test(NUMBERED, name); }
  function defineGlobal(name, value) {
    defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  function pin(name, value) { pinned[name] = value; defineGlobal(name, value); }

  // ── output ─────────────────────────────
  var streams = { stdout: { parts: [], used: 0, dropped: 0 }, stderr: { parts: [], used: 0, dropped: 0 } };
  function write(streamName, text) {
    var s = streams[streamName];
    var room = maxOutputChars - s.used;
    if (room <= 0) { s.dropped += text.length; return; }
    if (text.length > room) {
      call(arrayPush, s.parts, [call(stringSlice, text, [0, room])]);
      s.dropped += text.length - room;
      s.used = maxOutputChars;
      return;
    }
    call(arrayPush, s.parts, [text]);
    s.used += text.length;
  }
  function takeOutput() {
    var result = {
      stdout: call(arrayJoin, streams.stdout.parts, ['']),
      stderr: call(arrayJoin, streams.stderr.parts, ['']),
      droppedStdout: streams.stdout.dropped,
      droppedStderr: streams.stderr.dropped,
    };
    streams.stdout = { parts: [], used: 0, dropped: 0 };
    streams.stderr = { parts: [], used: 0, dropped: 0 };
    return jsonStringify(result);
  }

  // ── readable printing ──────────────────
  var MAX_DEPTH = 4;
  var MAX_ITEMS = 100;
  var MAX_STRING = 10000;
  var LINE_WIDTH = 72;
  function quote(s) {
    var cut = s.length > MAX_STRING ? s.length - MAX_STRING : 0;
    var shown = cut > 0 ? call(stringSlice, s, [0, MAX_STRING]) : s;
    var inner = jsonStringify(shown);
    inner = call(stringSlice, inner, [1, inner.length - 1]);
    inner = call(stringReplace, inner, [/\\"/g, '"']);
    inner = call(stringReplace, inner, [/'/g, "\\'"]);
    var q = "'" + inner + "'";
    return cut > 0 ? q + '... ' + cut + ' more characters' : q;
  }
  function keyText(key) {
    if (typeof key === 'symbol') return '[' + call(symbolToString, key) + ']';
    return test(IDENTIFIER, key) ? key : quote(key);
  }
  function tagOf(value) { return call(objectToString, value); }
  function functionText(fn) {
    var source = '';
    try { source = call(functionToString, fn); } catch (e) { source = ''; }
    var isClass = call(stringSlice, source, [0, 6]) === 'class ' || call(stringSlice, source, [0, 6]) === 'class{';
    var name = '';
    try { var d = getOwnPropertyDescriptor(fn, 'name'); name = d && typeof d.value === 'string' ? d.value : ''; } catch (e) { name = ''; }
    if (isClass) return '[class ' + (name || '(anonymous)') + ']';
    return '[Function: ' + (name || '(anonymous)') + ']';
  }
  function wrap(open, entries, close, indent) {
    if (entries.length === 0) return open + close;
    var single = open + ' ' + call(arrayJoin, entries, [', ']) + ' ' + close;
    var multiline = false;
    for (var i = 0; i < entries.length; i++) if (call(stringIndexOf, entries[i], ['\n']) >= 0) multiline = true;
    if (!multiline && single.length + indent <= LINE_WIDTH) return single;
    var pad = call(stringRepeat, ' ', [indent + 2]);
    return open + '\n' + pad + call(arrayJoin, entries, [',\n' + pad]) + '\n' + call(stringRepeat, ' ', [indent]) + close;
  }
  function propertyEntries(value, seen, depth, indent, skipIndices) {
    var entries = [];
    var keys = ownKeys(value);
    var shown = 0;
    for (var i = 0; i < keys.length; i++) {
      var key = keys[i];
      if (skipIndices && typeof key === 'string' && (key === 'length' || test(/^\d+$/, key))) continue;
      var d = getOwnPropertyDescriptor(value, key);
      if (!d || !d.enumerable) continue;
      if (shown >= MAX_ITEMS) { shown++; continue; }
      shown++;
      var text;
      if (d.get || d.set) text = d.get && d.set ? '[Getter/Setter]' : d.get ? '[Getter]' : '[Setter]';
      else text = inspect(d.value, seen, depth + 1, indent + 2);
      call(arrayPush, entries, [keyText(key) + ': ' + text]);
    }
    if (shown > MAX_ITEMS) call(arrayPush, entries, ['... ' + (shown - MAX_ITEMS) + ' more properties']);
    return entries;
  }
  function inspect(value, seen, depth, indent) {
    var t = typeof value;
    if (t === 'string') return quote(value);
    if (t === 'number') return value === 0 && 1 / value < 0 ? '-0' : StringCtor(value);
    if (t === 'bigint') return StringCtor(value) + 'n';
    if (t === 'boolean' || t === 'undefined') return StringCtor(value);
    if (t === 'symbol') return call(symbolToString, value);
    if (value === null) return 'null';
    if (t === 'function') return functionText(value);
    for (var s = 0; s < seen.length; s++) if (seen[s] === value) return '[Circular]';
    var tag = tagOf(value);
    if (value instanceof ErrorCtor || tag === '[object Error]') {
      var stack = '';
      try { stack = typeof value.stack === 'string' ? value.stack : ''; } catch (e) { stack = ''; }
      var head;
      try { head = call(errorToString, value); } catch (e) { head = 'Error'; }
      return stack ? head + '\n' + call(stringReplace, stack, [/\n$/, '']) : head;
    }
    if (tag === '[object Date]') { try { return call(dateToISOString, value); } catch (e) { return 'Invalid Date'; } }
    if (tag === '[object RegExp]') return call(regexpToString, value);
    if (tag === '[object Promise]') return 'Promise {}';
    if (depth > MAX_DEPTH) return isArray(value) ? '[Array]' : '[Object]';
    var next = []; for (var n = 0; n < seen.length; n++) call(arrayPush, next, [seen[n]]); call(arrayPush, next, [value]);
    if (isArray(value)) {
      var items = [];
      var limit = mathMin(value.length, MAX_ITEMS);
      for (var i = 0; i < limit; i++) {
        var d = getOwnPropertyDescriptor(value, StringCtor(i));
        call(arrayPush, items, [!d ? '<empty>' : (d.get || d.set) ? '[Getter]' : inspect(d.value, next, depth + 1, indent + 2)]);
      }
      if (value.length > MAX_ITEMS) call(arrayPush, items, ['... ' + (value.length - MAX_ITEMS) + ' more items']);
      var extra = propertyEntries(value, next, depth, indent, true);
      for (var x = 0; x < extra.length; x++) call(arrayPush, items, [extra[x]]);
      return wrap('[', items, ']', indent);
    }
    if (tag === '[object Map]') {
      var mapItems = []; var count = 0;
      var it = call(mapEntries, value);
      for (var step = it.next(); !step.done; step = it.next()) {
        if (count++ >= MAX_ITEMS) continue;
        call(arrayPush, mapItems, [inspect(step.value[0], next, depth + 1, indent + 2) + ' => ' + inspect(step.value[1], next, depth + 1, indent + 2)]);
      }
      if (count > MAX_ITEMS) call(arrayPush, mapItems, ['... ' + (count - MAX_ITEMS) + ' more items']);
      return 'Map(' + call(mapSize, value) + ') ' + wrap('{', mapItems, '}', indent);
    }
    if (tag === '[object Set]') {
      var setItems = []; var total = 0;
      var sit = call(setValues, value);
      for (var sstep = sit.next(); !sstep.done; sstep = sit.next()) {
        if (total++ >= MAX_ITEMS) continue;
        call(arrayPush, setItems, [inspect(sstep.value, next, depth + 1, indent + 2)]);
      }
      if (total > MAX_ITEMS) call(arrayPush, setItems, ['... ' + (total - MAX_ITEMS) + ' more items']);
      return 'Set(' + call(setSize, value) + ') ' + wrap('{', setItems, '}', indent);
    }
    var prefix = '';
    var proto = getPrototypeOf(value);
    if (proto === null) prefix = '[Object: null prototype] ';
    else if (proto !== O.prototype) {
      var ctor = getOwnPropertyDescriptor(proto, 'constructor');
      var ctorName = ctor && typeof ctor.value === 'function' ? getOwnPropertyDescriptor(ctor.value, 'name') : undefined;
      if (ctorName && typeof ctorName.value === 'string' && ctorName.value) prefix = ctorName.value + ' ';
    }
    return prefix + wrap('{', propertyEntries(value, next, depth, indent, false), '}', indent);
  }
  function formatArgs(args) {
    var parts = [];
    for (var i = 0; i < args.length; i++) {
      var a = args[i];
      call(arrayPush, parts, [typeof a === 'string' ? a : inspect(a, [], 0, 0)]);
    }
    return call(arrayJoin, parts, [' ']);
  }
  function logTo(streamName) { return function () { write(streamName, formatArgs(arguments) + '\n'); }; }

  // ── type names and JSON-safe copies ────
  // Brand checks that never run user code: typeName runs after the block (listing variables), where
  // a Proxy trap or getter looping forever must not be able to stall the scaffold.
  var dateGetTime = Date.prototype.getTime;
  var regexpSource = getOwnPropertyDescriptor(RegExp.prototype, 'source').get;
  function hasBrand(getter, value) { try { call(getter, value); return true; } catch (e) { return false; } }
  function isClassSource(fn) {
    var source = '';
    try { source = call(functionToString, fn); } catch (e) { return false; }
    return test(/^class[\s{]/, source);
  }
  function typeName(value) {
    if (value === null) return 'null';
    var t = typeof value;
    if (t === 'function') return isClassSource(value) ? 'class' : 'function';
    if (t !== 'object') return t;
    try { if (isArray(value)) return 'array'; } catch (e) { return 'object'; }
    if (hasBrand(mapSize, value)) return 'map';
    if (hasBrand(setSize, value)) return 'set';
    if (hasBrand(dateGetTime, value)) return 'date';
    if (value !== RegExpCtor.prototype && hasBrand(regexpSource, value)) return 'regexp';
    return 'object';
  }
  var MAX_COPY_NODES = 1000000;
  function toJsonSafe(value) {
    var budget = { nodes: 0 };
    function copy(v, ancestors) {
      if (++budget.nodes > MAX_COPY_NODES) return '[truncated: value too large]';
      var t = typeof v;
      if (v === null || t === 'string' || t === 'boolean') return v;
      if (t === 'number') return isNaNFn(v) || v === Infinity || v === -Infinity ? null : v;
      if (t === 'undefined') return null;
      if (t === 'bigint') return StringCtor(v);
      if (t === 'symbol') return call(symbolToString, v);
      if (t === 'function') return functionText(v);
      for (var a = 0; a < ancestors.length; a++) if (ancestors[a] === v) return '[Circular]';
      var tag = tagOf(v);
      if (tag === '[object Date]') { try { return call(dateToISOString, v); } catch (e) { return null; } }
      if (tag === '[object RegExp]') return call(regexpToString, v);
      if (tag === '[object Error]' || v instanceof ErrorCtor) { try { return call(errorToString, v); } catch (e) { return 'Error'; } }
      var next = []; for (var n = 0; n < ancestors.length; n++) call(arrayPush, next, [ancestors[n]]); call(arrayPush, next, [v]);
      if (isArray(v)) {
        var out = [];
        for (var i = 0; i < v.length; i++) {
          var d = getOwnPropertyDescriptor(v, StringCtor(i));
          call(arrayPush, out, [d && !d.get && !d.set ? copy(d.value, next) : null]);
        }
        return out;
      }
      if (tag === '[object Map]') {
        var entries = [];
        var it = call(mapEntries, v);
        for (var step = it.next(); !step.done; step = it.next()) call(arrayPush, entries, [[copy(step.value[0], next), copy(step.value[1], next)]]);
        return entries;
      }
      if (tag === '[object Set]') {
        var values = [];
        var sit = call(setValues, v);
        for (var sstep = sit.next(); !sstep.done; sstep = sit.next()) call(arrayPush, values, [copy(sstep.value, next)]);
        return values;
      }
      var obj = {};
      var keys = objectKeys(v);
      for (var k = 0; k < keys.length; k++) {
        var pd = getOwnPropertyDescriptor(v, keys[k]);
        if (!pd || pd.get || pd.set || pd.value === undefined || typeof pd.value === 'function') continue;
        defineProperty(obj, keys[k], { value: copy(pd.value, next), enumerable: true, writable: true, configurable: true });
      }
      return obj;
    }
    return jsonStringify(copy(value, []));
  }
  function sizeOf(value) {
    if (typeof value === 'string') return value.length;
    try { var text = toJsonSafe(value); return typeof text === 'string' ? text.length : 0; } catch (e) { return 0; }
  }

  // ── variables ──────────────────────────
  function globalValue(name) {
    var d = getOwnPropertyDescriptor(G, name);
    if (!d) return { found: false };
    if (d.get || d.set) return { found: true, accessor: true };
    return { found: true, value: d.value };
  }
  function userNames() {
    var names = getOwnPropertyNames(G);
    var out = [];
    for (var i = 0; i < names.length; i++) {
      var name = names[i];
      if (baseline[name] === true || isScaffold(name)) continue;
      if (helpers[name] !== undefined && globalValue(name).value === helpers[name]) continue;
      call(arrayPush, out, [name]);
    }
    return out;
  }
  function locals() {
    var names = userNames();
    var out = {};
    for (var i = 0; i < names.length; i++) {
      var g = globalValue(names[i]);
      out[names[i]] = g.accessor ? 'accessor' : typeName(g.value);
    }
    return jsonStringify(out);
  }
  function listVariables(withSizes) {
    var names = userNames();
    var out = [];
    for (var i = 0; i < names.length; i++) {
      var g = globalValue(names[i]);
      var size = g.accessor || withSizes !== 'sizes' ? 0 : sizeOf(g.value);
      call(arrayPush, out, [{ name: names[i], type: g.accessor ? 'accessor' : typeName(g.value), size: size }]);
    }
    return jsonStringify(out);
  }
  function getVariable(name) {
    var g = globalValue(name);
    if (!g.found || (baseline[name] === true && !isScaffold(name))) return [0];
    if (g.accessor) return [2, 'null'];
    // The host reads strings as UTF-8 C strings: one holding a NUL or a lone surrogate travels
    // as JSON instead (which escapes both).
    if (typeof g.value === 'string' && call(stringIsWellFormed, g.value) && call(stringIndexOf, g.value, ['\u0000']) === -1) return [1, g.value];
    return [2, toJsonSafe(g.value)];
  }
  function setVariable(name, value) {
    // __rlm is refreshed by the host each turn and stays read-only for guest code.
    if (name === '__rlm') pin(name, deepFreeze(value));
    else if (isScaffold(name)) pin(name, value);
    else defineGlobal(name, value);
  }
  function deleteGlobals(namesJson) {
    var names = jsonParse(namesJson);
    // Top-level var bindings are non-configurable: they cannot be deleted, only emptied.
    for (var i = 0; i < names.length; i++) {
      try { if (!delete G[names[i]]) G[names[i]] = undefined; } catch (e) { try { G[names[i]] = undefined; } catch (e2) { /* read-only */ } }
    }
  }
  function restore() {
    var failed = [];
    var names = objectKeys(pinned);
    for (var i = 0; i < names.length; i++) {
      var name = names[i];
      var d = getOwnPropertyDescriptor(G, name);
      if (d && !d.get && !d.set && d.value === pinned[name] && d.writable && d.configurable) continue;
      try { defineGlobal(name, pinned[name]); } catch (e) { call(arrayPush, failed, [name]); }
    }
    return jsonStringify(failed);
  }

  // ── errors ─────────────────────────────
  function describeError(error) {
    var name = 'Error', message = '', stack = '', lineNumber = null;
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        var n = error.name, m = error.message, s = error.stack, l = error.lineNumber;
        name = typeof n === 'string' && n ? n : 'Error';
        message = typeof m === 'string' ? m : formatArgs([error]);
        stack = typeof s === 'string' ? s : '';
        lineNumber = typeof l === 'number' ? l : null;
      } else {
        name = 'Uncaught';
        message = formatArgs([error]);
      }
    } catch (e) { message = 'unprintable error'; }
    return jsonStringify({ name: name, message: message, stack: stack, lineNumber: lineNumber });
  }

  // ── final answer ───────────────────────
  var finalAnswer = null;
  function stringify(value) {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    if (typeof value === 'object' && value !== null) { try { return toJsonSafe(value); } catch (e) { return StringCtor(value); } }
    return typeof value === 'symbol' ? call(symbolToString, value) : StringCtor(value);
  }
  function FINAL(value) {
    var answer = stringify(value);
    if (finalAnswer === null) finalAnswer = answer;
    return answer;
  }
  function availableVariables() {
    var names = userNames();
    return names.length === 0 ? 'No variables have been created yet.' : 'Available variables: ' + call(arrayJoin, names, [', ']);
  }
  function FINAL_VAR(name) {
    if (typeof name !== 'string') return FINAL(name);
    var key = call(stringReplace, call(stringReplace, name, [/^\s+|\s+$/g, '']), [/^(['"])(.*)\1$/, '$2']);
    var g = globalValue(key);
    var visible = g.found && !g.accessor && baseline[key] !== true && (!isScaffold(key) || test(NUMBERED, key) || key === 'context' || key === 'history');
    if (!visible) return "Error: Variable '" + key + "' not found. " + availableVariables();
    // undefined is never an answer (a block that stopped before assigning leaves it so).
    if (g.value === undefined) return "Error: Variable '" + key + "' holds undefined, which is not an answer. Assign it a value first.";
    return FINAL(g.value);
  }
  function SHOW_VARS() {
    var names = userNames();
    if (names.length === 0) return 'No variables have been created yet.';
    var parts = [];
    for (var i = 0; i < names.length; i++) {
      var g = globalValue(names[i]);
      call(arrayPush, parts, [names[i] + ' (' + (g.accessor ? 'accessor' : typeName(g.value)) + ')']);
    }
    return 'Variables: ' + call(arrayJoin, parts, [', ']);
  }
  function takeFinal() { var a = finalAnswer; finalAnswer = null; return a; }

  // ── host functions ─────────────────────
  function callHost(name, args) {
    var json;
    try { json = jsonStringify(args); } catch (e) {
      return call(promiseReject, PromiseCtor, [new TypeError(name + ': arguments must be JSON-serialisable')]);
    }
    return call(promiseThen, hostCall(name, json), [function (text) { return text === undefined ? undefined : jsonParse(text); }]);
  }
  function hostFunction(name) {
    var f = function () {
      // Trailing undefined arguments are left out (f(x, undefined) is f(x)); others become null.
      var count = arguments.length;
      while (count > 0 && arguments[count - 1] === undefined) count--;
      var args = [];
      for (var i = 0; i < count; i++) call(arrayPush, args, [arguments[i] === undefined ? null : arguments[i]]);
      return callHost(name, args);
    };
    defineProperty(f, 'name', { value: name });
    return f;
  }

  // ── scaffold ───────────────────────────
  var consoleObject = freeze({
    log: logTo('stdout'), info: logTo('stdout'), debug: logTo('stdout'), dir: logTo('stdout'), table: logTo('stdout'),
    warn: logTo('stderr'), error: logTo('stderr'),
    assert: function (condition) {
      if (condition) return;
      var rest = []; for (var i = 1; i < arguments.length; i++) call(arrayPush, rest, [arguments[i]]);
      write('stderr', 'Assertion failed' + (rest.length ? ': ' + formatArgs(rest) : '') + '\n');
    },
  });
  function deepFreeze(value) {
    if (value === null || typeof value !== 'object' || isFrozen(value)) return value;
    var keys = objectKeys(value);
    for (var i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    return freeze(value);
  }
  pin('console', consoleObject);
  pin('print', consoleObject.log);
  pin('FINAL', FINAL);
  pin('FINAL_VAR', FINAL_VAR);
  pin('SHOW_VARS', SHOW_VARS);
  pin('__rlm', deepFreeze(config.meta));
  for (var f = 0; f < config.functions.length; f++) {
    reserved[config.functions[f]] = true;
    pin(config.functions[f], hostFunction(config.functions[f]));
  }
  var regexpFlags = getOwnPropertyDescriptor(RegExp.prototype, 'flags').get;
  // Helpers take a RegExp or a source string; a RegExp does not survive JSON, so send its parts.
  function helperFunction(name) {
    var f = function () {
      var args = [];
      for (var i = 0; i < arguments.length; i++) {
        var a = arguments[i];
        if (i === 0 && a !== null && typeof a === 'object' && a !== RegExpCtor.prototype && hasBrand(regexpSource, a)) {
          a = { source: call(regexpSource, a), flags: call(regexpFlags, a) };
        }
        call(arrayPush, args, [a === undefined ? null : a]);
      }
      return callHost(name, args);
    };
    defineProperty(f, 'name', { value: name });
    return f;
  }
  for (var h = 0; h < config.helpers.length; h++) {
    var helper = helperFunction(config.helpers[h]);
    helpers[config.helpers[h]] = helper;
    defineGlobal(config.helpers[h], helper);
  }

  // Ballast: memory held back so that, after an out-of-memory error, releasing it leaves room for
  // the scaffold's own work (listing and clearing the variables that filled the heap).
  var ballast = null;
  function holdBallast() { if (ballast === null) ballast = new ArrayBuffer(config.ballastBytes); }
  holdBallast();

  return freeze({
    releaseBallast: function () { ballast = null; },
    holdBallast: holdBallast,
    takeOutput: takeOutput,
    writeStderr: function (text) { write('stderr', text); },
    formatCompletion: function (holder) { var v = holder.value; if (v !== undefined) write('stdout', inspect(v, [], 0, 0) + '\n'); },
    takeFinal: takeFinal,
    restore: restore,
    locals: locals,
    listVariables: listVariables,
    getVariable: getVariable,
    setVariable: setVariable,
    setJson: function (name, json) { setVariable(name, jsonParse(json)); },
    alias: function (to, from) { setVariable(to, globalValue(from).value); },
    userNames: function () { return jsonStringify(userNames()); },
    deleteGlobals: deleteGlobals,
    describeError: describeError,
  });
})`;
