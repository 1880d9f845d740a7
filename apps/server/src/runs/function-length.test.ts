import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The run lifecycle was one closure of some 600 lines; it is now small parts, and stays so.
const MAX_FUNCTION_LINES = 150;

const here = dirname(fileURLToPath(import.meta.url));
const files = [
  join(here, '..', 'run-manager.ts'),
  join(here, '..', 'cluster', 'run-coordinator.ts'),
  join(here, '..', 'cluster', 'cluster-loops.ts'),
  ...readdirSync(here)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(here, name)),
];

/** Every function in `path` with the lines its whole text spans, from first to last. */
function functionLengths(path: string): { name: string; lines: number }[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name === undefined ? '(anonymous)' : node.name.getText(source);
      found.push({ name: `${relative(here, path)}:${first + 1} ${name}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the run lifecycle in parts', () => {
  it(`has no function over ${MAX_FUNCTION_LINES} lines in run-manager.ts, runs/ or the cluster's run side`, () => {
    const all = files.flatMap(functionLengths);
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((entry) => entry.lines > MAX_FUNCTION_LINES)).toEqual([]);
  });
});
