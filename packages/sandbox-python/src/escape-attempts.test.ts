import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPythonSandbox } from './create-python-sandbox.js';
import type { PythonSandbox } from './python-sandbox.js';
import { run, TEST_MEMORY_BYTES } from './sandbox-cases.test-helpers.js';

/**
 * Escape attempts written in Python. One sandbox serves them all: every attempt must leave it
 * unharmed, and a sandbox that had been broken into would show it in the later attempts too.
 */
describe('escape attempts from Python', () => {
  let sandbox: PythonSandbox;
  let hostDir: string;
  beforeAll(async () => {
    hostDir = mkdtempSync(join(tmpdir(), 'rlm-python-escape-'));
    writeFileSync(join(hostDir, 'secret.txt'), 'host secret');
    sandbox = await createPythonSandbox({ limits: { memoryBytes: TEST_MEMORY_BYTES } });
  });
  afterAll(async () => {
    await sandbox.dispose();
    rmSync(hostDir, { recursive: true, force: true });
  });

  it.each([
    'js',
    'pyodide_js',
    'pyodide',
    'pyodide.ffi',
    'pyodide.code',
    '_pyodide',
    '_pyodide_core',
    'ctypes',
    '_ctypes',
    'micropip',
  ])('cannot import %s', async (module) => {
    const result = await sandbox.execute(`import ${module}`);
    expect(result.error).toMatchObject({ name: 'ModuleNotFoundError' });
  });

  it('finds no FFI module through sys.modules, importlib or the import system’s finders', async () => {
    const out = await run(
      sandbox,
      [
        'import sys, importlib',
        'leaks = [k for k in sys.modules if k.split(".")[0] in ("js", "pyodide_js", "pyodide", "_pyodide")]',
        'finders = [type(f).__module__ for f in sys.meta_path if "pyodide" in str(type(f).__module__)]',
        'for name in ("js", "pyodide_js"):',
        '    try:',
        '        importlib.import_module(name); leaks.append(name)',
        '    except ImportError:',
        '        pass',
        'saved = list(sys.meta_path)',
        'sys.meta_path[:] = [f for f in saved if type(f).__name__ != "SandboxImportBlocker" and f.__name__ != "SandboxImportBlocker"]',
        'try:',
        '    import js; leaks.append("js without the import blocker")',
        'except ImportError:',
        '    pass',
        'finally:',
        '    sys.meta_path[:] = saved',
        'print(leaks, finders)',
      ].join('\n'),
    );
    expect(out).toBe('[] []\n');
  });

  it('runs no subprocess: os.system, os.popen and subprocess fail and touch no host file', async () => {
    const marker = join(hostDir, 'pwned.txt');
    const out = await run(
      sandbox,
      [
        'import os, subprocess',
        'outcomes = []',
        `for attempt in (lambda: os.system("touch ${marker}"), lambda: os.popen("id"), lambda: subprocess.run(["touch", "${marker}"])):`,
        '    try:',
        '        attempt(); outcomes.append("ran")',
        '    except Exception as e:',
        '        outcomes.append(type(e).__name__)',
        'outcomes',
      ].join('\n'),
    );
    expect(out).not.toContain('ran');
    expect(() => writeFileSync(join(hostDir, 'probe'), '')).not.toThrow();
    await expect(import('node:fs').then((fs) => fs.existsSync(marker))).resolves.toBe(false);
  });

  it("reads only the in-memory filesystem: open('/etc/passwd') and host paths are not there", async () => {
    const out = await run(
      sandbox,
      [
        'import os',
        'outcomes = []',
        `for path in ("/etc/passwd", "${join(hostDir, 'secret.txt')}", "/proc/self/environ"):`,
        '    try:',
        '        outcomes.append(open(path).read()[:20])',
        '    except OSError as e:',
        '        outcomes.append(type(e).__name__)',
        'print(outcomes, sorted(os.listdir("/")))',
      ].join('\n'),
    );
    expect(out).not.toContain('host secret');
    expect(out).not.toContain('root:');
    expect(out).toContain("['dev', 'home', 'lib', 'proc', 'tmp']");
  });

  it('sees no host environment variable', async () => {
    const out = await run(sandbox, 'import os\nsorted(os.environ)');
    expect(out).toBe("['HOME', 'LANG', 'PATH', 'PWD', 'USER']\n");
  });

  it('opens no socket to the host, not even to a server on 127.0.0.1', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const out = await run(
        sandbox,
        [
          'import socket, urllib.request',
          'outcomes = []',
          'try:',
          `    s = socket.create_connection(("127.0.0.1", ${port}), timeout=2); s.sendall(b"x"); outcomes.append("sent")`,
          'except OSError as e:',
          '    outcomes.append(type(e).__name__)',
          'try:',
          `    urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=2); outcomes.append("fetched")`,
          'except OSError as e:',
          '    outcomes.append(type(e).__name__)',
          'outcomes',
        ].join('\n'),
      );
      expect(out).not.toMatch(/sent|fetched/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('holds no JavaScript proxy in any object a gc or __subclasses__ walk reaches', async () => {
    const out = await run(
      sandbox,
      [
        'import gc',
        'proxies = 0',
        'for o in gc.get_objects():',
        '    for r in [o] + list(gc.get_referents(o)):',
        '        if type(r).__name__ in ("JsProxy", "JsException") or type(r).__mro__[-2:-1] and "JsProxy" in [c.__name__ for c in type(r).__mro__]:',
        '            proxies += 1',
        'def walk(cls, seen):',
        '    for sub in type.__subclasses__(cls):',
        '        if sub not in seen:',
        '            seen.add(sub); walk(sub, seen)',
        '    return seen',
        'classes = walk(object, set())',
        'js_classes = [c for c in classes if "JsProxy" in c.__name__]',
        'instances = [o for o in gc.get_objects() if not isinstance(o, type) and isinstance(o, tuple(js_classes))]',
        'made = 0',
        'for cls in js_classes:',
        '    try:',
        '        cls(); made += 1',
        '    except Exception:',
        '        pass',
        'print(proxies, len(instances), made)',
      ].join('\n'),
    );
    expect(out).toBe('0 0 0\n');
  });

  it('past the Python layer (the FFI rebuilt with _imp), JavaScript compiles no code and exposes no process', async () => {
    // Python-level measures can be undone; the worker's realm is the second wall: string code
    // generation is off, and no stack frame's receiver is a global object holding `process`.
    const out = await run(
      sandbox,
      [
        'import _imp, importlib.machinery',
        "core = _imp.create_builtin(importlib.machinery.ModuleSpec('_pyodide_core', None))",
        'Function = core.to_js({}).constructor.constructor',
        'try:',
        "    Function('return process')(); compiled = True",
        'except Exception as e:',
        '    compiled = False; error = e.js_error',
        'Error = error.constructor.__proto__',
        'seen = []',
        'def prepare(_error, sites):',
        '    for site in sites:',
        '        receiver = site.getThis()',
        "        seen.append(receiver is not None and 'process' in dir(receiver))",
        "    return 'stack'",
        'Error.stackTraceLimit = 500',
        'Error.prepareStackTrace = core.create_proxy(prepare)',
        'target = core.to_js({})',
        'Error.captureStackTrace(target)',
        'target.stack',
        'print(compiled, len(seen) > 0, any(seen))',
      ].join('\n'),
    );
    expect(out).toBe('False True False\n');
  });

  it('runs no model code outside a block: hostile methods are not called to list or copy variables', async () => {
    const result = await sandbox.execute(
      [
        'class Hostile:',
        '    def __repr__(self):',
        '        while True: pass',
        '    @property',
        '    def __class__(self):',
        '        while True: pass',
        'class Items(dict):',
        '    def items(self):',
        '        while True: pass',
        'class Text(str):',
        '    def __len__(self):',
        '        while True: pass',
        'hostile = Hostile()',
        'items = Items(a=1)',
        'text = Text("abc")',
      ].join('\n'),
    );
    expect(result.error).toBeNull();
    expect(result.locals).toMatchObject({ hostile: 'Hostile', items: 'object', text: 'string' });
    expect(await sandbox.getVariable('items')).toEqual({ a: 1 });
    expect(String(await sandbox.getVariable('hostile'))).toMatch(/^<.*Hostile object at/);
    const listed = await sandbox.listVariables();
    expect(listed.find((variable) => variable.name === 'text')?.size).toBe(3);
    await sandbox.execute('del Hostile, Items, Text, hostile, items, text');
  });

  it('is still a working REPL after every attempt', async () => {
    expect(await run(sandbox, 'print(sum(range(10)))')).toBe('45\n');
  });
});
