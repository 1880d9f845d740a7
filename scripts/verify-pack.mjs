#!/usr/bin/env node
// Proves each publishable package works the way a user gets it: packed by pnpm (which rewrites
// `workspace:` ranges), then installed with plain npm ALONE into its own empty project outside the
// workspace (with only the @rlm packages it depends on, which a user would get from the
// registry), imported from Node ESM and from TypeScript (moduleResolution NodeNext), linted with
// publint, checked for native builds (a library must compile nothing on install), and, for the
// apps, run through the installed bins in node_modules/.bin. A package is publishable when it
// lives in packages/* or apps/*, is not private and has src/index.ts; new packages are picked up
// automatically. Run after `pnpm build`: `pnpm verify:pack`.
//
// Packages are checked a few at a time (each in its own project, so they cannot see each other):
// most of a check is waiting on npm and on child processes.
//
// Options: --keep leaves the temporary projects on disk; --only NAME (repeatable) checks only
// those packages (their @rlm dependencies are still packed and installed); --jobs N checks at
// most N packages at once (default: one more than the CPU count, at most 4); --rebuild-native
// has npm rebuild the CLI's better-sqlite3 even when the workspace compiled the same version.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { checkCliBin, checkServerBin } from './verify-pack/app-bins.mjs';
import { checkExecutorWithoutPython } from './verify-pack/executor-without-python.mjs';
import { packagesThatBuild } from './verify-pack/native-builds.mjs';
import { CheckFailed, readJson, run } from './verify-pack/run-checked.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const rebuildNative = process.argv.includes('--rebuild-native');
const optionValues = (flag) =>
  process.argv.flatMap((arg, index, all) => (all[index - 1] === flag ? [arg] : []));
const only = optionValues('--only');
const jobs = Number(optionValues('--jobs').at(-1) ?? Math.min(4, availableParallelism() + 1));
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`verify-pack: --jobs takes a whole number of at least 1, got ${jobs}`);
  process.exit(2);
}
const rootManifest = readJson(join(root, 'package.json'));
/** Pinned so a publint release cannot change CI results; 0.3.x supports Node >= 18. */
const PUBLINT = 'publint@0.3.25';

/**
 * Extra checks per package, beyond "every export is defined" and "the types resolve".
 * `js` is an expression over the imported module `m` that must be true (`await` allowed); `ts` is
 * a module body that must typecheck (use `@ts-expect-error` to prove types are real, not `any`).
 * Add a line when you add a package.
 */
const smokeChecks = {
  // Starts a real interpreter process from the installed package: Pyodide loads offline from
  // node_modules under the permission model, runs Python and answers a blocking host call.
  '@rlm/sandbox-python': {
    js: "await (async () => { const s = await m.createPythonSandbox({ context: 'abc', functions: { llm_query: { description: 'echo', call: async ([p]) => 'got ' + p } } }); try { const r = await s.execute('FINAL(llm_query(context.upper()))'); return r.finalAnswer === 'got ABC'; } finally { await s.dispose(); } })()",
    ts: [
      "import { createPythonSandbox, type PythonSandbox } from '@rlm/sandbox-python';",
      "export const open = (): Promise<PythonSandbox> => createPythonSandbox({ context: 'x' });",
      '// @ts-expect-error a sandbox has no such method; fails if the types were `any`.',
      'export const wrong = async () => (await open()).evaluate();',
    ].join('\n'),
  },
  '@rlm/protocol': {
    js: "m.findCodeBlocks('```repl\\nx = 1\\n```')[0] === 'x = 1' && m.queryMetadata('abc').contextTotalLength === 3",
    ts: [
      "import { findCodeBlocks, RlmError, type REPLResult } from '@rlm/protocol';",
      "const blocks: string[] = findCodeBlocks('```repl\\nx\\n```');",
      '// @ts-expect-error findCodeBlocks returns string[]; fails if the types were `any`.',
      'const wrong: number = blocks;',
      "export const seen: Array<keyof REPLResult> = ['stdout'];",
      "export const isError = (value: unknown) => RlmError.is(value, 'protocol.invalid_payload');",
      'export { wrong };',
    ].join('\n'),
  },
  // Starts a real MCP server (the SDK @rlm/mcp installed, over stdio) from the installed package,
  // calls one of its tools, and has a bad argument refused by the schema check before the call.
  '@rlm/mcp': {
    js: `await (async () => {
      const server = [
        "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
        "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
        "import { z } from 'zod';",
        "const s = new McpServer({ name: 'smoke', version: '1.0.0' });",
        "s.registerTool('add', { description: 'Adds.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));",
        'await s.connect(new StdioServerTransport());',
      ].join(' ');
      const { args } = m.parseMcpCommandLine("node --input-type=module -e 'the server'");
      const set = await m.mcpTools({ command: process.execPath, args: [args[0], args[1], server] });
      try {
        const signal = new AbortController().signal;
        const sum = await set.tools.add.call([{ a: 2, b: 3 }], { signal });
        const refused = await set.tools.add.call([{ a: 'two', b: 3 }], { signal }).then(() => false, (error) => error.code === 'mcp.invalid_arguments');
        return sum === '5' && refused && set.tools.add.signature === '({ a: number, b: number })';
      } finally {
        await set.close();
      }
    })()`,
    ts: [
      "import { mcpTools, type McpToolSet } from '@rlm/mcp';",
      "export const open = (): Promise<McpToolSet> => mcpTools({ command: 'node', args: ['s.mjs'] });",
      '// @ts-expect-error a tool set has no such method; fails if the types were `any`.',
      'export const wrong = async () => (await open()).connect();',
    ].join('\n'),
  },
  '@rlm/trace': {
    js: "m.joinHtml(['<i>', 1], ' ').toString() === '&lt;i&gt; 1' && m.parseTrajectory('{\"kind\":\"ev').length === 0",
    ts: [
      "import { joinHtml, parseTrajectory, type TraceRun } from '@rlm/trace';",
      "const records = parseTrajectory('');",
      '// @ts-expect-error parseTrajectory returns TrajectoryRecord[]; fails if the types were `any`.',
      'const wrong: string = records;',
      "export const markup: string = joinHtml(['<i>'], ', ').toString();",
      "export const fields: Array<keyof TraceRun> = ['runId'];",
      'export { wrong };',
    ].join('\n'),
  },
  // Installed without its optional drivers: the in-memory store works, and a SQLite store says
  // which package to add instead of failing on a missing module.
  '@rlm/memory': {
    js: [
      "(await (await m.createStore({ kind: 'memory' })).close(), true) &&",
      "(await m.createStore({ kind: 'sqlite', path: ':memory:' }).then(() => false, (error) =>",
      "  error.code === 'config.invalid' && error.message.includes('npm install better-sqlite3')))",
    ].join('\n'),
  },
  '@rlm/executor': {
    js: "(await import('@rlm/executor/defaults')).DEFAULT_MODEL_ID === m.DEFAULT_MODEL_ID",
    ts: [
      "import { DEFAULT_MODEL_ID } from '@rlm/executor/defaults';",
      "import { resolveModel } from '@rlm/executor';",
      'export const id: string = DEFAULT_MODEL_ID;',
      'export const resolve: typeof resolveModel = resolveModel;',
    ].join('\n'),
  },
};

/**
 * Packages allowed to build native code when installed. Libraries allow none (installing
 * @rlm/executor must compile nothing; SQLite and Postgres drivers are optional peers of
 * @rlm/memory); the apps keep their runs in SQLite.
 */
const nativeBuilds = {
  '@rlm/cli': ['better-sqlite3'],
  '@rlm/server': ['better-sqlite3'],
};

/** What a user does with an app's bins, run through node_modules/.bin in the app's own project. */
const binChecks = {
  '@rlm/cli': checkCliBin,
  '@rlm/server': checkServerBin,
};

/** What a user gets from a library installed alone, beyond importing it, run in its own project. */
const aloneChecks = {
  '@rlm/executor': checkExecutorWithoutPython,
};

/** pnpm itself: the one running this script when started by `pnpm …`, else the pinned one via npx. */
function pnpmCommand() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by pnpm for this script, which turbo never runs.
  const execPath = process.env.npm_execpath ?? '';
  if (/pnpm/.test(execPath) && existsSync(execPath)) {
    return execPath.endsWith('.js') || execPath.endsWith('.cjs')
      ? [process.execPath, [execPath]]
      : [execPath, []];
  }
  return ['npx', ['--yes', rootManifest.packageManager]];
}

function publishablePackages() {
  return ['packages', 'apps']
    .map((folder) => join(root, folder))
    .flatMap((dir) =>
      readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(dir, entry.name)),
    )
    .filter(
      (path) => existsSync(join(path, 'package.json')) && existsSync(join(path, 'src/index.ts')),
    )
    .map((path) => ({ path, manifest: readJson(join(path, 'package.json')) }))
    .filter(({ manifest }) => manifest.private !== true);
}

/** Every file named by the `exports` map must be in the installed package. */
function exportTargets(value) {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(exportTargets);
}

function checkExportsExist(name, installedDir) {
  const manifest = readJson(join(installedDir, 'package.json'));
  const missing = [
    ...exportTargets(manifest.exports ?? {}),
    ...Object.values(manifest.bin ?? {}),
  ].filter((target) => !existsSync(join(installedDir, target)));
  if (missing.length > 0) {
    throw new CheckFailed(
      `${name}: the tarball lacks files its exports map or bin names: ${missing.join(', ')}`,
    );
  }
  const leftover = Object.entries({
    ...manifest.dependencies,
    ...manifest.peerDependencies,
  }).filter(([, range]) => String(range).startsWith('workspace:'));
  if (leftover.length > 0) {
    throw new CheckFailed(
      `${name}: workspace: ranges left in the packed manifest: ${leftover.map(([dep]) => dep).join(', ')}`,
    );
  }
}

/** Every file under `dir` whose name ends with one of `suffixes`. */
function filesUnder(dir, suffixes) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && suffixes.some((suffix) => entry.name.endsWith(suffix)))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Every package the built JavaScript and declarations import must be a declared dependency, or a
 * user installing this package alone gets a crash or `any` types.
 */
function checkDeclaredImports(name, installedDir) {
  const manifest = readJson(join(installedDir, 'package.json'));
  const declared = new Set([
    name,
    ...builtinModules,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const undeclared = filesUnder(join(installedDir, 'dist'), ['.js', '.d.ts']).flatMap((file) =>
    importedPackages(readFileSync(file, 'utf8'))
      .filter((packageName) => !declared.has(packageName))
      .map((packageName) => `${packageName} (in ${relative(installedDir, file)})`),
  );
  if (undeclared.length > 0) {
    throw new CheckFailed(
      `${name}: imports packages it does not declare in dependencies or peerDependencies:\n  ${[...new Set(undeclared)].join('\n  ')}`,
    );
  }
}

/**
 * The package names (not relative paths, not `node:` modules) a module's text imports. TypeScript's
 * own scanner reads the imports, so string data that merely looks like one (`'free from'` in a
 * word list) is not mistaken for an import, as a regular expression over the text would be.
 */
function importedPackages(text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((file) => file.fileName)
    .filter((specifier) => !/^(\.|\/|node:)/.test(specifier))
    .map((specifier) => {
      const parts = specifier.split('/');
      return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
    });
}

async function checkImport(name, project) {
  const extra = smokeChecks[name]?.js;
  const script = [
    `const m = await import(${JSON.stringify(name)});`,
    'const names = Object.keys(m);',
    "if (names.length === 0) throw new Error('no exports');",
    'const undefinedNames = names.filter((key) => m[key] === undefined);',
    "if (undefinedNames.length > 0) throw new Error('undefined exports: ' + undefinedNames.join(', '));",
    extra
      ? `if (!(${extra})) throw new Error('smoke check failed: ' + ${JSON.stringify(extra)});`
      : '',
    'console.log(names.length);',
  ].join('\n');
  const count = (
    await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      label: `${name}: import from Node ESM`,
    })
  ).trim();
  return Number(count);
}

async function checkTypes(name, project) {
  const body =
    smokeChecks[name]?.ts ??
    `import * as pkg from '${name}';\nexport const exportNames: ReadonlyArray<keyof typeof pkg> = [];`;
  writeFileSync(join(project, 'check.ts'), `${body}\n`);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      strict: true,
      noEmit: true,
      // Checking every .d.ts (the model SDKs' included) costs about half a minute; what could
      // break in ours, an import of an undeclared package, is found by checkDeclaredImports.
      skipLibCheck: true,
      verbatimModuleSyntax: true,
    },
    files: ['check.ts'],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: project,
    label: `${name}: TypeScript (NodeNext) import`,
  });
}

function checkNativeBuilds(name, project) {
  const building = packagesThatBuild(join(project, 'node_modules'));
  const allowed = nativeBuilds[name] ?? [];
  const unexpected = building.filter((dependency) => !allowed.includes(dependency));
  if (unexpected.length > 0) {
    throw new CheckFailed(
      `${name}: installing it alone builds native code (${unexpected.join(', ')}); a library must compile nothing, so make such drivers optional peers`,
    );
  }
  return building;
}

/** The @rlm packages `name` needs at run time, itself first: what npm would fetch from the registry. */
function dependencyClosure(name, byName) {
  const closure = [];
  const visit = (current) => {
    if (closure.includes(current)) return;
    const entry = byName.get(current);
    if (entry === undefined) {
      throw new CheckFailed(`${name}: depends on ${current}, which is not a publishable package`);
    }
    closure.push(current);
    for (const dependency of Object.keys(entry.manifest.dependencies ?? {})) {
      if (dependency.startsWith('@rlm/')) visit(dependency);
    }
  };
  visit(name);
  return closure;
}

/** pnpm names a tarball after the package: @scope/name@1.0.0 → scope-name-1.0.0.tgz. */
function tarballOf({ name, version }, tarballs) {
  return join(tarballs, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
}

async function checkPackage({ manifest }, { byName, tarballs, work, publint }) {
  const { name } = manifest;
  const started = Date.now();
  const project = join(work, name.replace(/^@/, '').replace('/', '-'));
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'rlm-pack-check', private: true, type: 'module' }, null, 2),
  );
  const closure = dependencyClosure(name, byName);
  // The @rlm dependencies are passed as tarballs too (they are not on the registry); npm then
  // resolves their rewritten version ranges to these builds. Install scripts are skipped here
  // and the packages that would run one are listed by checkNativeBuilds; an app whose bins need
  // its native dependency rebuilds just that one below.
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--prefer-offline',
      ...closure.map((dependency) => tarballOf(byName.get(dependency).manifest, tarballs)),
      `@types/node@${rootManifest.devDependencies['@types/node']}`,
    ],
    { cwd: project, label: `${name}: npm install of its tarball alone` },
  );
  const installed = join(project, 'node_modules', name);
  checkExportsExist(name, installed);
  checkDeclaredImports(name, installed);
  const building = checkNativeBuilds(name, project);
  const count = await checkImport(name, project);
  await checkTypes(name, project);
  await run(publint, ['run', '--strict', tarballOf(manifest, tarballs)], {
    cwd: project,
    label: `${name}: publint`,
  });
  const bins = [
    ...((await aloneChecks[name]?.({ project })) ?? []),
    ...((await binChecks[name]?.({ project, root, rebuildNative })) ?? []),
  ];
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `ok ${name} alone (${closure.length - 1} @rlm dependencies, ${seconds}s): ${count} exports import from Node ESM; types resolve under NodeNext; exports map complete; imports declared; publint clean; ${building.length === 0 ? 'compiles nothing' : `native builds: ${building.join(', ')}`}${bins.length > 0 ? `; ${bins.join('; ')}` : ''}`,
  );
}

/**
 * Runs `task` over `items`, at most `limit` at once, and waits for all of them; then throws the
 * first failure in `items` order with every other failure's message after it, so one broken
 * package does not hide another.
 */
async function eachLimited(items, limit, task) {
  const failures = new Map();
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        await task(items[index]);
      } catch (error) {
        failures.set(index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.size === 0) return;
  const errors = [...failures.entries()].sort(([a], [b]) => a - b).map(([, error]) => error);
  const unexpected = errors.find((error) => !(error instanceof CheckFailed));
  if (unexpected !== undefined) throw unexpected;
  throw new CheckFailed(errors.map((error) => error.message).join('\n\n'));
}

async function main() {
  const packages = publishablePackages().filter(({ path, manifest }) => {
    if (existsSync(join(path, 'dist/index.js')) && existsSync(join(path, 'dist/index.d.ts'))) {
      return true;
    }
    const problem = `${manifest.name}: dist/index.js or dist/index.d.ts is missing; run \`pnpm build\` first`;
    // In CI the build has just run, so a missing dist is a broken package, not work in progress.
    if (process.env.CI === 'true') throw new CheckFailed(problem);
    console.warn(`skip ${problem}`);
    return false;
  });
  if (packages.length === 0) throw new CheckFailed('no built publishable packages');
  const byName = new Map(packages.map((entry) => [entry.manifest.name, entry]));
  const unknown = only.filter((name) => !byName.has(name));
  if (unknown.length > 0) throw new CheckFailed(`--only: no such package ${unknown.join(', ')}`);
  const checked =
    only.length > 0 ? packages.filter(({ manifest }) => only.includes(manifest.name)) : packages;

  const work = mkdtempSync(join(tmpdir(), 'rlm-verify-pack-'));
  const tarballs = join(work, 'tarballs');
  try {
    const [pnpm, pnpmArgs] = pnpmCommand();
    // One pnpm process packs them all (starting pnpm through npx costs seconds per call).
    const filters = packages.flatMap(({ manifest }) => ['--filter', manifest.name]);
    // publint's install needs nothing from the workspace: it runs while pnpm packs.
    const tools = join(work, 'tools');
    mkdirSync(tools);
    writeFileSync(join(tools, 'package.json'), '{ "name": "rlm-pack-tools", "private": true }');
    const publintInstalled = run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', PUBLINT],
      { cwd: tools, label: 'npm install publint' },
    );
    // Awaited below; a rejection before then must not count as unhandled.
    publintInstalled.catch(() => {});
    await run(
      pnpm,
      [...pnpmArgs, '--recursive', ...filters, 'pack', '--pack-destination', tarballs],
      {
        cwd: root,
        label: 'pnpm pack',
      },
    );
    const files = readdirSync(tarballs).filter((file) => file.endsWith('.tgz'));
    console.log(`packed ${files.length}: ${files.join(', ')}`);
    if (files.length !== packages.length) {
      throw new CheckFailed(
        `expected ${packages.length} tarballs, pnpm pack wrote ${files.length}`,
      );
    }
    await publintInstalled;
    const publint = join(tools, 'node_modules/.bin/publint');
    // The apps first: they take longest (their bins run), so they should not start last.
    const order = [...checked].sort(
      (a, b) => Number(b.manifest.name in binChecks) - Number(a.manifest.name in binChecks),
    );
    await eachLimited(order, jobs, (entry) =>
      checkPackage(entry, { byName, tarballs, work, publint }),
    );
  } finally {
    if (keep) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  return checked.length;
}

try {
  const started = Date.now();
  const count = await main();
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `verify-pack: ${count} packages each install alone and work outside the workspace (${seconds}s, ${jobs} at a time)`,
  );
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  console.error(`verify-pack: FAILED\n${error.message}`);
  process.exit(1);
}
