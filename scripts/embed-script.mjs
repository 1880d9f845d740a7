#!/usr/bin/env node
// Turns TypeScript source files that run somewhere other than Node (the sandbox's guest prelude
// inside QuickJS, the server's browser pages) into script strings at build time, so that code is
// type-checked by tsc and linted by Biome like every other file, yet ships as text.
//
//   node scripts/embed-script.mjs <embed.json>
//
// run from a package directory. embed.json lists jobs: [{ "entry": "src/x/index.ts",
// "out": "src/x.generated.ts", "name": "EXPORT", "expose": "fn" | "wrap": "iife" | "script",
// "profile": "guest" | "browser", "doc": "…" }]. For each, the entry and the modules it imports
// (relative `./x.js` imports only) are transpiled to ES2020, dependencies first, with their imports
// dropped and `export` keywords removed, so all of them share one scope: a top-level name declared
// twice is an error. The result is wrapped:
//   expose f       `(function () { 'use strict'; …; return f; })()`: evaluates to the function f
//   wrap iife      `(function () { 'use strict'; … })();`: runs once, declares no globals
//   wrap script    `'use strict'; …`: a classic script whose top-level names become globals
// The profile `guest` refuses syntax that consults objects a guest program can change
// (iteration protocols, spread, destructuring, `instanceof`, `for…in`, async code, classes,
// templates with substitutions).
// The generated files are build outputs: git-ignored (*.generated.ts) and rewritten only when
// their text changes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

function fail(message) {
  console.error(`embed-script: ${message}`);
  process.exit(1);
}

const shown = (file) => relative(process.cwd(), file);

/** Syntax the guest profile refuses, with the reason shown to whoever writes it. */
const GUEST_FORBIDDEN = new Map([
  [ts.SyntaxKind.ForOfStatement, 'for…of uses the iterator protocol, which guest code can replace'],
  [ts.SyntaxKind.ForInStatement, 'for…in walks prototypes guest code can add to'],
  [ts.SyntaxKind.SpreadElement, 'spread uses the iterator protocol, which guest code can replace'],
  [ts.SyntaxKind.SpreadAssignment, 'object spread reads properties guest code may define'],
  [ts.SyntaxKind.ArrayBindingPattern, 'array destructuring uses the iterator protocol'],
  [
    ts.SyntaxKind.ObjectBindingPattern,
    'destructuring reads through prototypes guest code can change',
  ],
  [ts.SyntaxKind.AwaitExpression, 'await looks up `then` and `constructor` on promises'],
  [ts.SyntaxKind.YieldExpression, 'generators use the iterator protocol'],
  [ts.SyntaxKind.ClassDeclaration, 'classes resolve methods through prototypes'],
  [ts.SyntaxKind.ClassExpression, 'classes resolve methods through prototypes'],
  [ts.SyntaxKind.TaggedTemplateExpression, 'tagged templates read a template object'],
  [
    ts.SyntaxKind.TemplateExpression,
    'QuickJS joins a template through String.prototype.concat, which guest code can replace: use +',
  ],
]);

function hasModifier(node, kind) {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

function guestProblem(node) {
  const reason = GUEST_FORBIDDEN.get(node.kind);
  if (reason !== undefined) return reason;
  const { InstanceOfKeyword, AsyncKeyword } = ts.SyntaxKind;
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === InstanceOfKeyword) {
    return 'instanceof consults Symbol.hasInstance';
  }
  if (hasModifier(node, AsyncKeyword)) return 'async functions resolve through `then`';
  return undefined;
}

function checkGuestSyntax(source) {
  const problems = [];
  const visit = (node) => {
    const why = guestProblem(node);
    if (why !== undefined) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      problems.push(`${shown(source.fileName)}:${line + 1}: ${why}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/** The file a value import refers to; refuses imports a shared scope cannot express. */
function importedFile(source, statement) {
  const where = shown(source.fileName);
  const clause = statement.importClause;
  const specifier = statement.moduleSpecifier.text;
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
    fail(`${where}: imports "${specifier}"; only relative modules can be embedded`);
  }
  const bindings = clause?.namedBindings;
  if (clause?.name !== undefined || (bindings && !ts.isNamedImports(bindings))) {
    fail(`${where}: use named imports only (no default or namespace import)`);
  }
  const renamed = (bindings?.elements ?? []).find((e) => e.propertyName && !e.isTypeOnly);
  if (renamed !== undefined) {
    fail(
      `${where}: "${renamed.propertyName.text} as ${renamed.name.text}": renaming is not supported`,
    );
  }
  return resolve(dirname(source.fileName), specifier.replace(/\.js$/, '.ts'));
}

/** The value imports of a module (type-only imports are erased and skipped). */
function valueImports(source) {
  const files = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      fail(`${shown(source.fileName)}: re-exports are not supported; export declarations directly`);
    }
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      files.push(importedFile(source, statement));
    }
  }
  return files;
}

function declaredNames(source, statement) {
  if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
    return statement.name ? [statement.name.text] : [];
  }
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.map((declaration) => {
      if (!ts.isIdentifier(declaration.name)) {
        fail(`${shown(source.fileName)}: top-level destructuring is not supported`);
      }
      return declaration.name.text;
    });
  }
  if (ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) {
    fail(`${shown(source.fileName)}: enums and namespaces are not supported`);
  }
  return [];
}

/** Names a module declares at top level (they all end up in one shared scope). */
function topLevelNames(source) {
  return source.statements.flatMap((statement) => declaredNames(source, statement));
}

function stripExport(factory, statement, modifiers) {
  if (ts.isFunctionDeclaration(statement)) {
    const { asteriskToken, name, typeParameters, parameters, type, body } = statement;
    return factory.updateFunctionDeclaration(
      statement,
      modifiers,
      asteriskToken,
      name,
      typeParameters,
      parameters,
      type,
      body,
    );
  }
  if (ts.isVariableStatement(statement)) {
    return factory.updateVariableStatement(statement, modifiers, statement.declarationList);
  }
  if (ts.isClassDeclaration(statement)) {
    const { name, typeParameters, heritageClauses, members } = statement;
    return factory.updateClassDeclaration(
      statement,
      modifiers,
      name,
      typeParameters,
      heritageClauses,
      members,
    );
  }
  // Interfaces and type aliases vanish in transpilation; anything else exported is unexpected.
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement))
    return statement;
  fail(`${shown(statement.getSourceFile().fileName)}: cannot embed this kind of export`);
}

/** A statement without module syntax: imports dropped, `export` removed. */
function withoutModuleSyntax(factory, statement) {
  const { ExportKeyword, DefaultKeyword } = ts.SyntaxKind;
  if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) return undefined;
  if (ts.isExportAssignment(statement) || hasModifier(statement, DefaultKeyword)) {
    fail(`${shown(statement.getSourceFile().fileName)}: default exports are not supported`);
  }
  if (!hasModifier(statement, ExportKeyword)) return statement;
  const kept = ts.getModifiers(statement).filter((modifier) => modifier.kind !== ExportKeyword);
  return stripExport(factory, statement, kept);
}

/** Drops import declarations and `export` modifiers: every module then shares one scope. */
const stripModuleSyntax = (context) => (sourceFile) =>
  context.factory.updateSourceFile(
    sourceFile,
    sourceFile.statements
      .map((statement) => withoutModuleSyntax(context.factory, statement))
      .filter((statement) => statement !== undefined),
  );

/** The entry and every module it imports, dependencies first. */
function loadModules(entry) {
  const sources = new Map();
  const visiting = new Set();
  const load = (file) => {
    if (sources.has(file)) return;
    if (visiting.has(file)) fail(`import cycle through ${shown(file)}`);
    visiting.add(file);
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      fail(`cannot read ${shown(file)}`);
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2020, true, ts.ScriptKind.TS);
    for (const dependency of valueImports(source)) load(dependency);
    visiting.delete(file);
    sources.set(file, source);
  };
  load(resolve(entry));
  return [...sources.values()];
}

function checkModules(sources, { profile, expose }) {
  const declaredIn = new Map();
  const problems = [];
  for (const source of sources) {
    for (const name of topLevelNames(source)) {
      const other = declaredIn.get(name);
      if (other !== undefined) {
        problems.push(
          `${name} is declared in both ${shown(other)} and ${shown(source.fileName)} (embedded modules share one scope)`,
        );
      }
      declaredIn.set(name, source.fileName);
    }
    if (profile === 'guest') problems.push(...checkGuestSyntax(source));
  }
  if (expose !== undefined && !declaredIn.has(expose)) {
    problems.push(`expose ${expose}: no module declares it`);
  }
  if (problems.length > 0) fail(`\n  ${problems.join('\n  ')}`);
}

function transpile(source) {
  const { outputText, diagnostics } = ts.transpileModule(source.text, {
    fileName: source.fileName,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ESNext,
      removeComments: true,
      verbatimModuleSyntax: false,
    },
    transformers: { before: [stripModuleSyntax] },
  });
  if (diagnostics?.length) fail(ts.formatDiagnostics(diagnostics, ts.createCompilerHost({})));
  // transpileModule adds `export {};` to files that end up with no exports.
  const text = outputText.replace(/^export \{\};\s*$/m, '').trim();
  return `// ${shown(source.fileName)}\n${text}`;
}

function wrapped(body, { expose, wrap }) {
  if (expose !== undefined)
    return `(function () {\n'use strict';\n${body}\nreturn ${expose};\n})()`;
  if (wrap === 'iife') return `(function () {\n'use strict';\n${body}\n})();\n`;
  return `'use strict';\n${body}\n`;
}

function checkJob(job, where) {
  if (!job.entry || !job.out || !job.name) fail(`${where}: give entry, out and name`);
  if ((job.expose === undefined) === (job.wrap === undefined)) {
    fail(`${where}: give exactly one of expose and wrap`);
  }
  if (job.wrap !== undefined && !['iife', 'script'].includes(job.wrap)) {
    fail(`${where}: wrap must be iife or script, not ${job.wrap}`);
  }
  if (!['guest', 'browser'].includes(job.profile ?? 'browser')) {
    fail(`${where}: profile must be guest or browser`);
  }
}

function writeIfChanged(file, text) {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  let previous;
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    previous = undefined;
  }
  // Rewriting an unchanged file would make tsc -b and watchers rebuild for nothing.
  if (previous !== text) writeFileSync(file, text);
}

function embed(job, configPath) {
  checkJob(job, `${configPath}: ${job.name ?? '(unnamed job)'}`);
  const sources = loadModules(job.entry);
  checkModules(sources, { profile: job.profile ?? 'browser', expose: job.expose });
  const script = wrapped(sources.map(transpile).join('\n\n'), job);
  const inputs = sources.map((source) => shown(source.fileName)).join(', ');
  const module = [
    `// Generated by scripts/embed-script.mjs from ${inputs}. Do not edit: edit those files.`,
    ...(job.doc ? [`/** ${job.doc} */`] : []),
    `export const ${job.name}: string = ${JSON.stringify(script)};`,
    '',
  ].join('\n');
  writeIfChanged(job.out, module);
}

const configPath = process.argv[2];
if (configPath === undefined) fail('usage: node scripts/embed-script.mjs <embed.json>');
let jobs;
try {
  jobs = JSON.parse(readFileSync(configPath, 'utf8'));
} catch (error) {
  fail(`cannot read ${configPath}: ${error.message}`);
}
if (!Array.isArray(jobs)) fail(`${configPath}: expected an array of jobs`);
for (const job of jobs) embed(job, configPath);
