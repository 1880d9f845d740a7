# Run once after Pyodide loads, before the scaffold: takes away every Python-level way to JavaScript
# and to the operating system that Pyodide offers.
#
# - The FFI modules (js, pyodide_js, pyodide, _pyodide, _pyodide_core) and ctypes are dropped from
#   sys.modules and refused by an import blocker that runs first.
# - Pyodide's import hook for JavaScript modules and its asyncio event loop (which call into
#   JavaScript) are removed; every module attribute still holding a JavaScript proxy is deleted.
# - os.system, os.popen and the other process functions raise PermissionError (stock Pyodide runs
#   os.system through Node's child_process on the host).
# - The environment is a fixed, host-independent set of variables.
#
# A determined attacker can get around Python-level measures (gc walks, _imp.create_builtin), so
# this is the first of three layers: the worker's JavaScript realm is stripped of process, require,
# fetch and string code generation, and the process runs under Node's permission model (see
# interpreter-worker.ts and host/spawn-interpreter.ts).
#
# Embedded into the build by scripts/embed-python.mjs (python-sources.generated.ts).

def _harden():
    import gc, os, sys
    from pyodide.ffi import JsProxy

    blocked = frozenset({'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'ctypes', '_ctypes', 'micropip', 'pyodide_http'})

    class SandboxImportBlocker:
        """Refuses the modules that reach JavaScript or native code outside the sandbox."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            if name.partition('.')[0] in blocked:
                raise ModuleNotFoundError('No module named ' + repr(name) + ' (not available in this sandbox)', name=name)
            return None

        @staticmethod
        def invalidate_caches():
            return None

    import asyncio
    asyncio.set_event_loop_policy(None)
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if not type(finder).__module__.startswith(('_pyodide', 'pyodide'))
                        and not getattr(finder, '__module__', '').startswith(('_pyodide', 'pyodide'))]
    sys.meta_path.insert(0, SandboxImportBlocker)
    # Every namespace that may hold a JavaScript proxy lets go of it: module globals, and the
    # attributes of Pyodide's own objects (its loaders, its event loop).
    namespaces = [getattr(module, '__dict__', None) for module in list(sys.modules.values())]
    namespaces += [getattr(holder, '__dict__', None) for holder in gc.get_objects()
                   if type(holder).__module__.startswith(('_pyodide', 'pyodide'))]
    for namespace in namespaces:
        if type(namespace) is dict:
            for key in [key for key, value in namespace.items() if isinstance(value, JsProxy)]:
                del namespace[key]
    for name in list(sys.modules):
        if name.partition('.')[0] in blocked:
            del sys.modules[name]

    def refuse(*args, **kwargs):
        raise PermissionError('subprocesses are not available in this sandbox')

    def refuse_audit_hook(hook):
        raise PermissionError('audit hooks are not available in this sandbox')

    # An audit hook cannot be removed once added, and runs on operations the scaffold performs
    # between blocks (listing the variables calls id()): model code would run outside its block.
    sys.addaudithook = refuse_audit_hook

    import posix
    for module in (os, posix):
        for name in ('system', 'popen', 'fork', 'forkpty', 'execv', 'execve', 'spawnv', 'spawnve',
                     'posix_spawn', 'posix_spawnp', 'kill', 'killpg'):
            if hasattr(module, name):
                setattr(module, name, refuse)
    os.environ.clear()
    os.environ.update({'HOME': '/home/pyodide', 'USER': 'sandbox', 'LANG': 'C.UTF-8', 'PATH': '/', 'PWD': '/'})
    gc.collect()


_harden()
del _harden
