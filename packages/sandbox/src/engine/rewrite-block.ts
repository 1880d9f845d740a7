import { type Node, parse } from 'acorn';

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface DeclarationNode extends Node {
  kind?: string;
  id?: (Node & { name: string }) | null;
}

/** A word that may start a top-level declaration this rewrite changes (escapes included). */
const DECLARATION_WORD = /let|const|class|\\u/;

/**
 * Rewrites a block so that its top-level declarations can be repeated in later blocks, as in a
 * REPL: top-level `let`/`const` become `var`, and `class X {}` becomes `var X = class X {}`.
 * QuickJS rejects a whole block that re-declares a lexical global ("redeclaration") before any
 * of it runs; `var` bindings are properties of the global object and may be declared again.
 * Edits never add or remove newlines, so line numbers in errors still match the model's code.
 *
 * Returns `undefined` when acorn cannot parse the block; the caller then runs the original code
 * so the engine reports its own syntax error (with its line number).
 */
export function rewriteBlock(code: string): string | undefined {
  // Without these words there is nothing to rewrite: the parse (most of a short block's host-side
  // cost) is skipped, and the engine reports any syntax error itself, as it does when acorn fails.
  if (!DECLARATION_WORD.test(code)) return code;
  let program: Node & { body: DeclarationNode[] };
  try {
    program = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowAwaitOutsideFunction: true,
      allowHashBang: true,
    }) as Node & { body: DeclarationNode[] };
  } catch {
    return undefined;
  }
  const edits: Edit[] = [];
  for (const statement of program.body) {
    if (
      statement.type === 'VariableDeclaration' &&
      (statement.kind === 'let' || statement.kind === 'const')
    ) {
      edits.push({
        start: statement.start,
        end: statement.start + statement.kind.length,
        text: 'var',
      });
    } else if (statement.type === 'ClassDeclaration' && statement.id) {
      edits.push({
        start: statement.start,
        end: statement.start,
        text: `var ${statement.id.name} = `,
      });
      edits.push({ start: statement.end, end: statement.end, text: ';' });
    }
  }
  if (edits.length === 0) return code;
  let result = '';
  let cursor = 0;
  for (const edit of edits) {
    result += code.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return result + code.slice(cursor);
}
