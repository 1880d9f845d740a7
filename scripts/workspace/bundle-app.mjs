#!/usr/bin/env node
// Bundles an app (apps/cli, apps/server) into a few files, so a fresh process reads a handful of
// modules instead of ~700 (resolving and compiling each one was most of `rlm --version`'s 0.5 s).
//
//   node ../../scripts/workspace/bundle-app.mjs
//
// run from the app's directory, after its workspace dependencies are built (their dist/ is what
// gets bundled). It reads `bundle` from the app's package.json:
//   { "entries": { "bin": "src/bin.ts", "index": "src/index.ts" }, "external": ["better-sqlite3"] }
// and writes dist/<entry>.js plus shared chunks beside them (dist/chunk-*.js); a dynamic
// `import()` stays a separate chunk, read only when it runs. tsc still writes the declarations.
//
// What stays outside the bundle (`external`, plus Node's built-ins) is loaded from node_modules as
// usual: native addons (better-sqlite3), packages that find their own files at run time (QuickJS's
// and Pyodide's WASM, pino's transport threads), optional peers. Each of them must be a dependency
// or peer of the app, or the installed package could not resolve it: the build fails otherwise. A
// package a workspace package imports only when asked for, telling the user to install it when
// missing (`pg` for a Postgres store), is an optional peer of the app.
//
// Code of workspace packages that finds files next to itself is rewritten or checked here, since it
// now runs from the app's dist/:
// - `createRequire(import.meta.url)('../../package.json')` becomes the JSON it read;
// - `scriptUrl('./x-worker.js', import.meta.url)` (a worker thread's script) gets that script
//   emitted as its own entry, dist/x-worker.js, beside the chunk that starts it;
// - any other `import.meta.url` / `import.meta.dirname` / `import.meta.filename` fails the build
//   naming the file, so a new one is handled here instead of breaking the installed bin.
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { BUNDLE_INFO } from './build-markers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const appDir = process.cwd();

function fail(message) {
  console.error(`bundle-app: ${message}`);
  process.exit(1);
}

const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
const config = manifest.bundle;
if (config === undefined || typeof config.entries !== 'object') {
  fail(`${manifest.name}: package.json has no "bundle": { "entries": { name: "src/x.ts" } }`);
}
const externalNames = config.external ?? [];
const declared = new Set(
  Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(
    (name) => !name.startsWith('@types/'),
  ),
);
for (const name of externalNames) {
  if (!declared.has(name)) {
    fail(`${manifest.name}: external "${name}" is not a dependency or peer of the app`);
  }
}

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const isExternal = (id) => builtins.has(id) || externalNames.includes(packageOf(id));

const workspaceDist = `${sep}dist${sep}`;
const insideWorkspacePackage = (id) =>
  id.startsWith(join(root, 'packages') + sep) && id.includes(workspaceDist);

const PACKAGE_JSON_READ = /createRequire\(import\.meta\.url\)\((['"])(\.{1,2}\/[^'"]+\.json)\1\)/g;
const WORKER_SCRIPT = /scriptUrl\((['"])\.\/([\w.-]+\.js)\1, import\.meta\.url\)/g;
const IMPORT_META_RESOLVE = /import\.meta\.resolve\((['"])([^'"]+)\1\)/g;

/** Fails the build unless every package resolved at run time is one the app declares. */
function checkRunTimeResolves(code, where) {
  for (const [, , specifier] of code.matchAll(IMPORT_META_RESOLVE)) {
    if (!declared.has(packageOf(specifier))) {
      fail(
        `${where} resolves "${specifier}" at run time: add ${packageOf(specifier)} to ${manifest.name}'s dependencies`,
      );
    }
  }
  const left = code
    .replace(WORKER_SCRIPT, '')
    .replace(IMPORT_META_RESOLVE, '')
    .match(/import\.meta\.(url|dirname|filename)/);
  if (left !== null) {
    fail(
      `${where} uses ${left[0]}, which points into the app's dist/ once bundled: teach scripts/workspace/bundle-app.mjs about it, or mark its package external`,
    );
  }
}

/** Rewrites or checks what finds files relative to a workspace module (see the header). */
function relocatedFiles() {
  const workers = new Map();
  /** Emits each worker script the module starts as dist/<its name>, once. */
  function emitWorkers(context, code, id) {
    for (const [, , file] of code.matchAll(WORKER_SCRIPT)) {
      const script = resolve(dirname(id), file);
      const seen = workers.get(file);
      if (seen === script) continue;
      if (seen !== undefined)
        fail(`two worker scripts are both named ${file}: ${seen} and ${script}`);
      workers.set(file, script);
      context.emitFile({ type: 'chunk', id: script, fileName: file });
    }
  }
  return {
    name: 'rlm-relocated-files',
    transform(code, id) {
      if (!insideWorkspacePackage(id) || !code.includes('import.meta')) return null;
      const rewritten = code
        .replace(PACKAGE_JSON_READ, (_match, _quote, path) =>
          JSON.stringify(JSON.parse(readFileSync(resolve(dirname(id), path), 'utf8'))),
        )
        .replace(/\n\/\/# sourceMappingURL=.*$/, '');
      emitWorkers(this, rewritten, id);
      checkRunTimeResolves(rewritten, relative(root, id));
      return { code: rewritten, map: null };
    },
  };
}

const distDir = join(appDir, 'dist');
mkdirSync(distDir, { recursive: true });
// The previous build's JavaScript (bundles, or tsc's per-file output before bundling) goes, so the
// packed tarball holds only what this build wrote; tsc's declarations and build info stay.
for (const entry of readdirSync(distDir, { withFileTypes: true, recursive: true })) {
  if (entry.isFile() && /\.js(\.map)?$/.test(entry.name)) {
    rmSync(join(entry.parentPath, entry.name));
  }
}

const bundle = await rolldown({
  input: Object.fromEntries(
    Object.entries(config.entries).map(([name, path]) => [name, join(appDir, path)]),
  ),
  platform: 'node',
  external: isExternal,
  plugins: [relocatedFiles()],
  logLevel: 'warn',
  onLog(level, log) {
    // A circular import among a package's own modules is how they are written; not news here.
    if (log.code === 'CIRCULAR_DEPENDENCY') return;
    // A package imported both ways stays where its static importers are; that is fine here.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    console.error(`bundle-app: ${level}: ${log.message}`);
  },
});
const { output } = await bundle.write({
  dir: distDir,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunk-[hash].js',
  sourcemap: false,
});
await bundle.close();

for (const chunk of output) {
  if (chunk.type !== 'chunk') continue;
  for (const specifier of [...chunk.imports, ...chunk.dynamicImports]) {
    if (specifier.startsWith('.') || specifier.startsWith('/') || builtins.has(specifier)) continue;
    const name = packageOf(specifier);
    if (declared.has(name)) continue;
    if (!output.some((other) => other.fileName === specifier)) {
      fail(`${chunk.fileName} imports "${specifier}", which is no dependency of ${manifest.name}`);
    }
  }
}
for (const bin of Object.values(manifest.bin ?? {})) chmodSync(join(appDir, bin), 0o755);
const chunks = output.filter((file) => file.type === 'chunk');
const bytes = chunks.reduce((sum, chunk) => sum + chunk.code.length, 0);
// Written last: the build's progress lines (build-progress.mjs) count the app built when it is.
writeFileSync(
  join(distDir, BUNDLE_INFO),
  `${JSON.stringify({ files: chunks.map((chunk) => chunk.fileName).sort(), bytes }, null, 2)}\n`,
);
console.log(
  `bundle-app: ${manifest.name}: ${chunks.length} files, ${(bytes / 1024).toFixed(0)} KiB in dist/`,
);
