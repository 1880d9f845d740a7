# Evaluated once in every interpreter after hardening.py, before any model code: defines the
# scaffold, a namespace the worker drives through a handful of JSON-in/JSON-out functions. Model
# code runs in a separate namespace (user_ns); the scaffold's own objects are never bound there.
#
# Host calls leave Python through the character device /dev/rlm (see device-bridge.ts): a call
# writes one JSON request and reads the JSON reply. No Pyodide FFI object is involved, so the
# interpreter needs no js/pyodide_js module at all.
#
# Embedded into the build by scripts/embed-python.mjs (python-sources.generated.ts).

import ast as _ast, builtins as _builtins, gc as _gc, json as _json, keyword as _keyword
import linecache as _linecache, os as _os, re as _re, sys as _sys, traceback as _traceback
import types as _types

_BLOCK_FILE = '<block>'
_DEVICE = '/dev/rlm'
_NUMBERED = _re.compile(r'^(context|history)_\d+$')
_SETTABLE = _re.compile(r'^((context|history)(_\d+)?|__rlm)$')
_dumps = _json.dumps
_loads = _json.loads
# What the listing and the host's reads between blocks use, captured before any model code: model
# code can import these modules and replace their attributes (json.JSONEncoder, types.ModuleType
# with a metaclass's __subclasscheck__, gc.get_referents), which the scaffold must never call.
import _json as _cjson
_c_make_encoder = _cjson.make_encoder
_encode_text = _cjson.encode_basestring_ascii
_scan_json = _json.JSONDecoder().scan_once
_ModuleType = _types.ModuleType
_MappingProxyType = _types.MappingProxyType
_FUNCTION_TYPES = (_types.FunctionType, _types.BuiltinFunctionType, _types.MethodType)
_get_referents = _gc.get_referents
_gc_enable, _gc_disable, _gc_isenabled = _gc.enable, _gc.disable, _gc.isenabled
_settrace, _setprofile, _gettrace, _getprofile = _sys.settrace, _sys.setprofile, _sys.gettrace, _sys.getprofile


def _refuse_default(value):
    raise TypeError('not a JSON value')


def _safe_dumps(value, allow_nan=True):
    """json.dumps of a value made of exact JSON types, by the C encoder captured above (no
    attribute of the json module, which model code can replace, is looked up)."""
    encoder = _c_make_encoder(None, _refuse_default, _encode_text, None, ': ', ', ', False, False, allow_nan)
    return str.join('', encoder(value, 0))


def _safe_loads(text):
    """json.loads by the C scanner captured above (see _safe_dumps)."""
    value, end = _scan_json(text, 0)
    if end != len(text):
        raise ValueError('extra data after the JSON value')
    return value
_os_open, _os_read, _os_write, _os_close, _O_RDWR = _os.open, _os.read, _os.write, _os.close, _os.O_RDWR
_MAX_COPY_NODES = 1_000_000
_MAX_REPR = 10_000


class HostError(RuntimeError):
    """A host function failed; .name and .code say how (code is set for sandbox errors)."""

    def __init__(self, message, name='Error', code=None):
        super().__init__(message)
        self.name = name
        self.code = code


# Tracebacks name it as model code sees it, not by the scaffold's module.
HostError.__module__ = 'builtins'


class _State:
    user_ns = None
    pinned = {}
    helpers = {}
    final = None
    stdout = None
    stderr = None
    names_before = ()
    # The user's variable names as the last finish_block left them, while nothing has changed
    # user_ns since: the next block's names_before without walking the namespace again.
    names_now = None
    # Globals whose name is not an exact str, kept out of user_ns between blocks (see _set_aside).
    aside = []
    # Values the scaffold unbound after a block, kept alive until the next one (see _restore).
    displaced = []
    # The model's trace and profile functions and whether its gc collects (see _model_hooks_off).
    hooks = (None, None, True)
    hooks_on = True
    error = None
    out_of_memory = False
    max_answer_chars = 1_000_000
    max_error_chars = 100_000
    max_bridge_chars = 64 * 1024 * 1024
    # Payloads whose text the interpreter thread keeps for scans on V8: (the str, its name).
    held = []


S = _State()


def _json_default(value):
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, (bytes, bytearray)):
        return value.decode('utf-8', 'replace')
    raise TypeError('a ' + type(value).__name__ + ' cannot be sent to the host (use str, int, float, bool, None, list or dict)')


def _host_call(name, args):
    try:
        request = _dumps({'fn': name, 'args': args}, ensure_ascii=True, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as error:
        raise TypeError(name + ': arguments must be JSON values (' + str(error) + ')') from None
    if len(request) > S.max_bridge_chars:
        raise ValueError(
            name + ': the call sends ' + str(len(request)) + ' characters; a host call may send at most '
            + str(S.max_bridge_chars) + ': send less (for example a slice of the context)'
        )
    fd = _os_open(_DEVICE, _O_RDWR)
    try:
        _os_write(fd, request.encode('ascii'))
        parts = []
        while True:
            part = _os_read(fd, 1 << 20)
            if not part:
                break
            parts.append(part)
    finally:
        _os_close(fd)
    reply = _loads(b''.join(parts))
    if 'interrupted' in reply:
        raise KeyboardInterrupt
    if reply['ok']:
        return reply.get('value')
    error = reply['error']
    kind = {'sandbox.invalid_value': TypeError, 'sandbox.invalid_pattern': ValueError}.get(error.get('code'))
    if kind is not None:
        raise kind(error['message'])
    raise HostError(error['message'], error.get('name', 'Error'), error.get('code'))


def _camel(key):
    head, *rest = key.split('_')
    return head + ''.join(part[:1].upper() + part[1:] for part in rest) if rest and head else key


def _host_function(name):
    def call(*args, **kwargs):
        values = list(args)
        while values and values[-1] is None:
            values.pop()
        if kwargs:
            options = {_camel(key): value for key, value in kwargs.items() if value is not None}
            if values and isinstance(values[-1], dict):
                values[-1] = {**values[-1], **options}
            else:
                values.append(options)
        return _host_call(name, values)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = 'Host function ' + name + ' (blocks until the host answers).'
    return call


_FLAG_LETTERS = ((_re.IGNORECASE, 'i'), (_re.MULTILINE, 'm'), (_re.DOTALL, 's'), (_re.VERBOSE, 'x'))


def _pattern(pattern, flags):
    letters = ''
    if isinstance(pattern, _re.Pattern):
        letters = ''.join(letter for bit, letter in _FLAG_LETTERS if pattern.flags & bit)
        pattern = pattern.pattern
    if isinstance(pattern, bytes):
        pattern = pattern.decode('utf-8')
    if isinstance(flags, int):
        letters += ''.join(letter for bit, letter in _FLAG_LETTERS if flags & bit)
    elif isinstance(flags, str):
        letters += flags
    elif flags is not None:
        raise TypeError('flags must be re flags (re.I | re.M) or a string such as "im"')
    if not isinstance(pattern, str):
        raise TypeError('pattern must be a str or a compiled re.Pattern')
    return {'source': pattern, 'flags': letters}


def _options(**values):
    return {key: value for key, value in values.items() if value is not None}


def grep(pattern, *, flags=None, context=None, max=None, target=None):
    return _host_call('grep', [_pattern(pattern, flags), _options(context=context, max=max, target=target)])


def find_all(pattern, *, flags=None, max=None, target=None):
    return _host_call('find_all', [_pattern(pattern, flags), _options(max=max, target=target)])


def count(pattern, *, flags=None, target=None):
    return _host_call('count', [_pattern(pattern, flags), _options(target=target)])


def lines(start, end=None, *, target=None):
    return _host_call('lines', [start, end, _options(target=target)])


def chunk(size, *, overlap=None, max=None, target=None):
    return _host_call('chunk', [size, _options(overlap=overlap, max=max, target=target)])


_HELPERS = {'grep': grep, 'find_all': find_all, 'count': count, 'lines': lines, 'chunk': chunk}


# ── variables ─────────────────────────────

def _is(value, kinds):
    """isinstance without running model code (no __class__ property, no __instancecheck__)."""
    return issubclass(type(value), kinds)


# Read from the type object itself: type(value).__name__ would go through the metaclass, whose
# __getattribute__ or a __name__ property there is model code.
_TYPE_NAME = type.__dict__['__name__'].__get__


def _type_name(value):
    return _TYPE_NAME(type(value))


def _category(value):
    if value is None:
        return 'null'
    if _is(value, bool):
        return 'boolean'
    if _is(value, (int, float)):
        return 'number'
    if _is(value, str):
        return 'string'
    if _is(value, (list, tuple)):
        return 'array'
    if _is(value, dict):
        return 'object'
    if _is(value, type):
        return 'class'
    if _is(value, _FUNCTION_TYPES):
        return 'function'
    return _type_name(value)


def _user_entries():
    """(name, value) of the user's variables, found without running model code: the namespace is
    walked, never searched (a search hashes and compares names, which a str subclass as a global
    name turns into model code), and each name is read as an exact str copy."""
    entries = []
    # Runs twice a block: the lookups are hoisted and an exact str (nearly every name) is taken as
    # it is, which in Pyodide halves the walk.
    pinned, helpers, module_type = S.pinned, S.helpers, _ModuleType
    items = list(dict.items(S.user_ns))
    if S.aside:
        items += S.aside
    for key, value in items:
        if type(key) is not str:
            if not issubclass(type(key), str):
                continue
            key = str.__str__(key)
        if key in pinned or str.startswith(key, '__') or issubclass(type(value), module_type):
            continue
        if helpers.get(key, _user_entries) is value:
            continue
        entries.append((key, value))
    return entries


def _user_names():
    return [name for name, _ in _user_entries()]


def _set_aside():
    """Moves the globals whose name is not an exact str out of user_ns until the next block (see
    run_user): between blocks the scaffold and the host look names up in user_ns, and with such a
    name there a lookup can call its __hash__ or __eq__. Nothing is freed: every key and value is
    held here while user_ns is rebuilt in place (functions hold it as their globals)."""
    ns = S.user_ns
    aside = [(key, value) for key, value in dict.items(ns) if type(key) is not str]
    if aside:
        kept = {key: value for key, value in dict.items(ns) if type(key) is str}
        dict.clear(ns)
        dict.update(ns, kept)
    S.aside = aside


def _put_back():
    """Puts the set-aside globals back: model code (their __hash__) runs, inside the block."""
    aside, S.aside = S.aside, []
    for key, value in aside:
        S.user_ns[key] = value


def _available():
    names = _user_names()
    return 'Available variables: ' + ', '.join(names) if names else 'No variables have been created yet.'


def _json_safe(value):
    """A JSON copy made with the built-in types' own methods: no model-defined method runs."""
    budget = [0]

    def copy(v, ancestors):
        budget[0] += 1
        if budget[0] > _MAX_COPY_NODES:
            return '[truncated: value too large]'
        if v is None or v is True or v is False:
            return v
        if _is(v, str):
            return str.__str__(v)
        if _is(v, int):
            number = int.__index__(v)
            return number if -(2 ** 53) < number < 2 ** 53 else int.__repr__(number)
        if _is(v, float):
            number = float.__float__(v)
            return number if number == number and number not in (float('inf'), float('-inf')) else None
        if id(v) in ancestors:
            return '[Circular]'
        inner = ancestors | {id(v)}
        for kind in (list, tuple, set, frozenset):
            if _is(v, kind):
                return [copy(item, inner) for item in kind.__iter__(v)]
        if _is(v, dict):
            return {_key(key): copy(item, inner) for key, item in dict.items(v)}
        if _is(v, _MappingProxyType):
            # Its items() would call the mapping's own items(): read the dict behind it directly.
            behind = _get_referents(v)
            if len(behind) == 1 and _is(behind[0], dict):
                return {_key(key): copy(item, inner) for key, item in dict.items(behind[0])}
        return object.__repr__(v)[:_MAX_REPR]

    return copy(value, frozenset())


def _key(key):
    if _is(key, str):
        return str.__str__(key)
    # `is`, not `in (bool, int, float)`: comparing types can call a metaclass's __eq__.
    kind = type(key)
    if key is None or kind is bool or kind is int or kind is float:
        return repr(key)
    return object.__repr__(key)


def _lookup(name):
    """(found, value) of a global by its exact name; user_ns holds only exact str names between
    blocks, and a set-aside name is compared with str's own __eq__."""
    ns = S.user_ns
    if name in ns:
        return True, ns[name]
    for key, value in S.aside:
        if _is(key, str) and str.__eq__(key, name) is True:
            return True, value
    return False, None


def get_variable(name):
    found, value = _lookup(name)
    if not found or name.startswith('__') and name != '__rlm':
        return _safe_dumps({'found': False})
    return _safe_dumps({'found': True, 'value': _json_safe(value)}, allow_nan=False)


def _size(value):
    for kind in (str, bytes, bytearray):
        if _is(value, kind):
            return kind.__len__(value)
    try:
        return len(_safe_dumps(_json_safe(value)))
    except Exception:
        return 0


def list_variables():
    return _safe_dumps([{'name': n, 'type': _category(v), 'size': _size(v)} for n, v in _user_entries()])


def _freeze(value):
    if isinstance(value, dict):
        return _types.MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


def _pin(name, value):
    S.names_now = None
    S.pinned[name] = value
    S.user_ns[name] = value


def set_variable(name, text):
    S.names_now = None
    value = _safe_loads(text)
    if name == '__rlm':
        _pin(name, _freeze(value))
    elif _SETTABLE.match(name):
        _pin(name, value)
        # The text the interpreter thread holds under this name is no longer the payload's.
        S.held = [entry for entry in S.held if entry[1] != name]
        if name == 'context_0':
            _pin('context', value)
    else:
        S.user_ns[name] = value
    return 'null'


def _restore():
    ns = S.user_ns
    for name, value in S.pinned.items():
        current = ns.get(name, _restore)
        if current is not value:
            # Held until the next block: freeing it now could run its __del__ (model code).
            S.displaced.append(current)
            ns[name] = value
    ns['__builtins__'] = _builtins
    _sys.stdout, _sys.stderr = S.stdout, S.stderr


# ── final answer ──────────────────────────

def _answer_text(value):
    # Containers, booleans and None become JSON text, as in the JavaScript REPL, so a typed answer
    # (an output schema) can take FINAL({...}) from code; Python's repr of a dict is not JSON.
    if type(value) is str:
        return value
    if value is None or _is(value, (bool, list, tuple, dict)):
        try:
            return _dumps(_json_safe(value), ensure_ascii=False, allow_nan=False)
        except ValueError:
            pass
    return str(value)


def FINAL(value):
    """Sets this block's final answer (the first call in a block wins) and returns it as a str."""
    answer = _answer_text(value)
    if len(answer) > S.max_answer_chars:
        raise ValueError(
            'the final answer is ' + str(len(answer)) + ' characters long; answers are limited to '
            + str(S.max_answer_chars) + ' characters: give a shorter answer, or summarise it'
        )
    if S.final is None:
        S.final = answer
    return answer


def FINAL_VAR(name):
    """Sets the final answer from the variable called name; an error string if there is none."""
    if type(name) is not str:
        return FINAL(name)
    key = name.strip()
    for quote in ('"', "'"):
        if len(key) >= 2 and key[0] == quote and key[-1] == quote:
            key = key[1:-1]
    ns = S.user_ns
    pinned_value = key in S.pinned and not (_NUMBERED.match(key) or key in ('context', 'history'))
    if key not in ns or key.startswith('__') or pinned_value:
        return "Error: Variable '" + key + "' not found. " + _available()
    return FINAL(ns[key])


def SHOW_VARS():
    """A string listing the variables this REPL holds, with their Python types."""
    entries = _user_entries()
    if not entries:
        return 'No variables have been created yet.'
    return 'Variables: ' + ', '.join(n + ' (' + type(v).__name__ + ')' for n, v in entries)


# ── re.findall over a payload, on V8 ──────
# `re.findall(pattern, context)` with the very str a large ASCII payload was loaded as is answered
# on V8 by a scan thread of this process (host-regex-scan.ts) when the pattern is in the subset that finds
# exactly what Python's `re` finds (python-regex-subset.ts); otherwise, and for every other string,
# Python's own findall runs. The wrapper keeps findall's name, signature and documentation.
_re_findall = _re.findall
_Pattern = _re.Pattern
_RegexFlag = _re.RegexFlag
_re_compile = _re.compile
_FALLBACK = object()
_type, _tuple, _int_value = type, tuple, int.__int__


def _held_name(string):
    for value, name in S.held:
        if value is string:
            return name
    return None


def _host_findall(name, pattern, flags):
    if _type(pattern) is _Pattern:
        if _type(flags) is not int or flags != 0 or _type(pattern.pattern) is not str:
            return _FALLBACK
        source, flags = pattern.pattern, pattern.flags
    elif _type(pattern) is str:
        source = pattern
    else:
        return _FALLBACK
    if _type(flags) is _RegexFlag:
        flags = _int_value(flags)
    if _type(flags) is not int or flags & 128:
        return _FALLBACK
    request = _safe_dumps({'scan': {'payload': name, 'pattern': source, 'flags': flags}})
    fd = _os_open(_DEVICE, _O_RDWR)
    try:
        _os_write(fd, request.encode('ascii'))
        parts = []
        while True:
            part = _os_read(fd, 1 << 24)
            if not part:
                break
            parts.append(part)
    finally:
        _os_close(fd)
    reply = _safe_loads(b''.join(parts).decode('utf-8'))
    if reply.get('ok') is not True:
        return _FALLBACK
    if _type(pattern) is str:
        try:
            # Python must accept the pattern too (its errors come from its own findall).
            _re_compile(pattern, flags)
        except Exception:
            return _FALLBACK
    value = reply['value']
    if reply['groups'] > 1:
        return [_tuple(item) for item in value]
    return value


def findall(pattern, string, flags=0):
    name = _held_name(string) if S.held else None
    if name is not None:
        value = _host_findall(name, pattern, flags)
        if value is not _FALLBACK:
            return value
    return _re_findall(pattern, string, flags)


findall.__doc__ = _re_findall.__doc__
findall.__module__ = 're'
_re.findall = findall
del findall


# ── blocks ────────────────────────────────

def configure(text):
    config = _loads(text)
    S.names_now = None
    S.user_ns = {'__name__': '__main__', '__builtins__': _builtins, '__doc__': None}
    S.pinned = {}
    S.stdout, S.stderr = _sys.stdout, _sys.stderr
    for name, fn in (('FINAL', FINAL), ('FINAL_VAR', FINAL_VAR), ('SHOW_VARS', SHOW_VARS), ('print', _builtins.print)):
        _pin(name, fn)
    for name in config['functions']:
        _pin(name, _host_function(name))
    S.helpers = {name: _HELPERS[name] for name in config['helpers']}
    # Named so model code can catch it; like the helpers, an ordinary (rebindable, unlisted) name.
    S.helpers['HostError'] = HostError
    S.max_answer_chars = config['maxAnswerChars']
    S.max_error_chars = config['maxErrorChars']
    S.max_bridge_chars = config['maxBridgeChars']
    S.user_ns.update(S.helpers)
    _pin('__rlm', _freeze(config['meta']))
    _model_hooks_off()
    return 'null'


def load_payload(name, kind, path, held=''):
    S.names_now = None
    with open(path, 'rb') as file:
        data = file.read()
    _os.remove(path)
    value = data.decode('utf-8') if kind == 'text' else _loads(data)
    del data
    if held:
        S.held.append((value, name))
    _pin(name, value)
    if name == 'context_0':
        _pin('context', value)
    return 'null'


def run_user(code):
    """Runs one block; interruptible. Errors are kept for finish_block."""
    S.final = None
    S.error = None
    S.out_of_memory = False
    names, S.names_now = S.names_now, None
    S.names_before = frozenset(_user_names()) if names is None else names
    _linecache.cache[_BLOCK_FILE] = (len(code), None, code.splitlines(True), _BLOCK_FILE)
    _model_hooks_on()
    try:
        _run_block(code)
    finally:
        _model_hooks_off()
    return 'null'


def _run_block(code):
    try:
        S.displaced = []
        _put_back()
        tree = compile(code, _BLOCK_FILE, 'exec', _ast.PyCF_ONLY_AST, dont_inherit=True)
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = _ast.Expression(tree.body.pop().value)
        exec(compile(tree, _BLOCK_FILE, 'exec', dont_inherit=True), S.user_ns)
        if last is not None:
            value = eval(compile(last, _BLOCK_FILE, 'eval', dont_inherit=True), S.user_ns)
            if value is not None:
                print(repr(value))
    except BaseException as error:
        # Described here, while the block's limits still apply: str() of an exception is model code.
        S.out_of_memory = _is(error, MemoryError)
        try:
            S.error = _describe(error)
        except BaseException:
            name = type(error).__name__
            S.error = {'name': name, 'message': '', 'line': None, 'traceback': name + '\n'}


def _model_hooks_off():
    """Between blocks (from the end of run_user to the start of the next one) no hook model code
    set may run: its trace and profile functions are set aside, and the automatic garbage
    collector, which runs the finalizers of cyclic garbage (__del__, weakref callbacks) whenever
    an allocation tips its threshold, is off. run_user puts both back as the model left them."""
    if not S.hooks_on:
        return
    S.hooks_on = False
    S.hooks = (_gettrace(), _getprofile(), _gc_isenabled())
    _settrace(None)
    _setprofile(None)
    _gc_disable()


def _model_hooks_on():
    trace, profile, collecting = S.hooks
    S.hooks = (None, None, True)
    S.hooks_on = True
    if collecting:
        _gc_enable()
    _setprofile(profile)
    _settrace(trace)


def _block_frames(error):
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != _BLOCK_FILE:
        tb = tb.tb_next
    return tb


def _hide_scaffold_frames(summary, seen):
    """Drops the scaffold's frames from a traceback and from the exceptions chained to it."""
    if summary is None or id(summary) in seen:
        return
    seen.add(id(summary))
    summary.stack = _traceback.StackSummary.from_list(
        [frame for frame in summary.stack if not frame.filename.startswith('<rlm-')]
    )
    _hide_scaffold_frames(summary.__cause__, seen)
    _hide_scaffold_frames(summary.__context__, seen)


def _describe(error):
    name = type(error).__name__[:200]
    try:
        message = str(error)
    except Exception:
        message = '<unprintable ' + name + '>'
    cap = S.max_error_chars
    line = None
    if isinstance(error, SyntaxError) and error.filename == _BLOCK_FILE:
        line = error.lineno
    for frame, lineno in _traceback.walk_tb(_block_frames(error)):
        if frame.f_code.co_filename == _BLOCK_FILE:
            line = lineno
    try:
        summary = _traceback.TracebackException(type(error), error, _block_frames(error), limit=30)
        _hide_scaffold_frames(summary, set())
        text = ''.join(summary.format())
    except Exception:
        text = name + ': ' + message + '\n'
    if len(text) > cap:
        text = text[:cap] + '... + [' + str(len(text) - cap) + ' chars...]\n'
    return {'name': name, 'message': message[:cap], 'line': line, 'traceback': text}


def finish_block():
    """Collects the block's outcome; runs with interrupts off and runs no model code."""
    # run_user set the hooks aside, unless an interrupt escaped it first.
    _model_hooks_off()
    described, S.error = S.error, None
    _set_aside()
    cleared = []
    if described is not None and S.out_of_memory:
        # The variables this block created are what filled memory: drop them so the REPL can go on
        # (freeing them may run their __del__: the price of getting the memory back).
        cleared = [n for n in _user_names() if n not in S.names_before]
        gone = frozenset(cleared)
        for name in cleared:
            S.user_ns.pop(name, None)
        S.aside = [(k, v) for k, v in S.aside if not (_is(k, str) and str.__str__(k) in gone)]
        _gc.collect()
    for stream in (S.stdout, S.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    _restore()
    locals_ = {name: _category(value) for name, value in _user_entries()}
    S.names_now = frozenset(locals_)
    final, S.final = S.final, None
    return _safe_dumps({'error': described, 'locals': locals_, 'finalAnswer': final, 'cleared': cleared})


def is_identifier(name):
    return name.isidentifier() and not _keyword.iskeyword(name)
