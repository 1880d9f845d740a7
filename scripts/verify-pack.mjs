#!/usr/bin/env node
// Proves each publishable package works the way a user gets it: packed by pnpm (which rewrites
// `workspace:` ranges), installed with plain npm into an empty project outside the workspace, then
// imported from Node ESM and from TypeScript (moduleResolution NodeNext) and linted with publint.
// A package is publishable when it lives in packages/*, is not private and has src/index.ts; new
// packages are picked up automatically. Run after `pnpm build`: `pnpm verify:pack`.
//
// Options: --keep leaves the temporary project on disk for inspection.
import { spawnSync } from 'node:child_process';
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
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const rootManifest = readJson(join(root, 'package.json'));
/** Pinned so a publint release cannot change CI results; 0.3.x supports Node >= 18. */
const PUBLINT = 'publint@0.3.25';

/**
 * Extra checks per package, beyond "every export is defined" and "the types resolve".
 * `js` is an expression over the imported module `m` that must be true; `ts` is a module body
 * that must typecheck (use `@ts-expect-error` to prove types are real, not `any`).
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
};

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

class CheckFailed extends Error {}

function run(command, args, { cwd, label }) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
  });
  if (result.error)
    throw new CheckFailed(`${label}: could not start ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new CheckFailed(`${label} failed (exit ${result.status}):\n${output}`);
  }
  return result.stdout;
}

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
  const dir = join(root, 'packages');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name))
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
  const missing = exportTargets(manifest.exports ?? {}).filter(
    (target) => !existsSync(join(installedDir, target)),
  );
  if (missing.length > 0) {
    throw new CheckFailed(
      `${name}: the tarball lacks files its exports map names: ${missing.join(', ')}`,
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
 * Every package the built JavaScript and declarations import must be a declared dependency: in
 * the shared test project a missing one could be satisfied by another package's dependency and
 * go unnoticed, while a user installing this package alone would get a crash or `any` types.
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

function checkImport(name, project) {
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
  const count = run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: project,
    label: `${name}: import from Node ESM`,
  }).trim();
  return Number(count);
}

function writeTypeChecks(project, names) {
  const files = names.map((name, index) => {
    const file = `check-${index}.ts`;
    const body =
      smokeChecks[name]?.ts ??
      `import * as pkg from '${name}';\nexport const exportNames: ReadonlyArray<keyof typeof pkg> = [];`;
    writeFileSync(join(project, file), `${body}\n`);
    return file;
  });
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
    files,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
}

/** Removes (in place) packages whose internal dependencies are not being packed: npm could not install them. */
function dropPackagesWithMissingDependencies(packages) {
  for (let changed = true; changed; ) {
    changed = false;
    const names = new Set(packages.map(({ manifest }) => manifest.name));
    for (const [index, { manifest }] of packages.entries()) {
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
      const missing = deps.filter((dep) => dep.startsWith('@rlm/') && !names.has(dep));
      if (missing.length === 0) continue;
      const problem = `${manifest.name}: its dependencies ${missing.join(', ')} are not built or not publishable`;
      if (process.env.CI === 'true') throw new CheckFailed(problem);
      console.warn(`skip ${problem}`);
      packages.splice(index, 1);
      changed = true;
      break;
    }
  }
}

function main() {
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
  dropPackagesWithMissingDependencies(packages);
  if (packages.length === 0) throw new CheckFailed('no built publishable packages under packages/');

  const work = mkdtempSync(join(tmpdir(), 'rlm-verify-pack-'));
  const tarballs = join(work, 'tarballs');
  const project = join(work, 'project');
  try {
    const [pnpm, pnpmArgs] = pnpmCommand();
    // One pnpm process packs them all (starting pnpm through npx costs seconds per call).
    const filters = packages.flatMap(({ manifest }) => ['--filter', manifest.name]);
    run(pnpm, [...pnpmArgs, '--recursive', ...filters, 'pack', '--pack-destination', tarballs], {
      cwd: root,
      label: 'pnpm pack',
    });
    const files = readdirSync(tarballs).filter((file) => file.endsWith('.tgz'));
    console.log(`packed ${files.length}: ${files.join(', ')}`);
    if (files.length !== packages.length) {
      throw new CheckFailed(
        `expected ${packages.length} tarballs, pnpm pack wrote ${files.length}`,
      );
    }

    // An empty npm project outside the workspace. All tarballs go into one install so internal
    // dependencies (rewritten to plain version ranges) resolve to these builds, not the registry.
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'rlm-pack-check', private: true, type: 'module' }, null, 2),
    );
    // Install scripts are skipped: this checks packaging (files, exports, types, dependency
    // ranges), not native builds, and a from-source better-sqlite3 build costs minutes.
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefer-offline',
        ...files.map((file) => join(tarballs, file)),
        `@types/node@${rootManifest.devDependencies['@types/node']}`,
        PUBLINT,
      ],
      { cwd: project, label: 'npm install of the tarballs' },
    );

    const names = packages.map(({ manifest }) => manifest.name);
    for (const { manifest } of packages) {
      const { name, version } = manifest;
      const installed = join(project, 'node_modules', name);
      checkExportsExist(name, installed);
      checkDeclaredImports(name, installed);
      const count = checkImport(name, project);
      // pnpm names a tarball after the package: @scope/name@1.0.0 → scope-name-1.0.0.tgz.
      const tarball = join(tarballs, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
      run(join(project, 'node_modules/.bin/publint'), ['run', '--strict', tarball], {
        cwd: project,
        label: `${name}: publint`,
      });
      console.log(
        `ok ${name}: ${count} exports import from Node ESM; exports map complete; imports declared; publint clean`,
      );
    }

    writeTypeChecks(project, names);
    run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
      label: 'TypeScript (NodeNext) import of the installed packages',
    });
    console.log(`ok types resolve under NodeNext for ${names.join(', ')}`);
  } finally {
    if (keep) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

try {
  main();
  console.log('verify-pack: all packages install and import outside the workspace');
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  console.error(`verify-pack: FAILED\n${error.message}`);
  process.exit(1);
}
