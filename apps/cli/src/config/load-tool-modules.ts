import { pathToFileURL } from 'node:url';
import type { ToolDefinition } from '@rlm/executor';
import { isReservedName, RlmError } from '@rlm/protocol';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Imports each `--tool` module and collects its host tools. A module exports its tools as
 * `export const tools = { name: { description, call } }` or as its default export; `call`
 * receives the JSON arguments of the REPL call and `{ signal }`, and resolves to a JSON value.
 * Everything is checked here, so a bad module fails before a model is called, with its path in
 * the message.
 *
 * @throws RlmError `config.invalid` naming the module (and the tool) for an unloadable module,
 *   a missing or malformed export, a bad or reserved name, or a name two modules both define
 */
export async function loadToolModules(
  paths: readonly string[],
): Promise<Record<string, ToolDefinition>> {
  const tools: Record<string, ToolDefinition> = {};
  const owner = new Map<string, string>();
  for (const path of paths) {
    const exported = toolsExportOf(path, await importModule(path));
    for (const [name, value] of Object.entries(exported)) {
      const issue = toolIssue(name, value);
      if (issue !== undefined) throw invalid(path, `tool ${name}: ${issue}`);
      const earlier = owner.get(name);
      if (earlier !== undefined) {
        throw invalid(path, `tool ${name} is also defined by ${earlier}; rename one of them`);
      }
      owner.set(name, path);
      tools[name] = value as ToolDefinition;
    }
  }
  return tools;
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND'
        ? 'the file does not exist (check the --tool path)'
        : `it does not load: ${error instanceof Error ? error.message : String(error)}`;
    throw invalid(path, reason, error);
  }
}

function toolsExportOf(path: string, module: Record<string, unknown>): Record<string, unknown> {
  const exported = module['tools'] ?? module['default'];
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
    throw invalid(
      path,
      'expected `export const tools = { name: { description, call } }` or a default export of that shape',
    );
  }
  return exported as Record<string, unknown>;
}

function toolIssue(name: string, value: unknown): string | undefined {
  if (!IDENTIFIER.test(name)) return 'tool names must be JavaScript identifiers';
  if (isReservedName(name)) return `${name} is a name the REPL defines itself`;
  if (typeof value !== 'object' || value === null) {
    return 'expected { description: string, call(args, { signal }) }';
  }
  const tool = value as Partial<ToolDefinition>;
  if (typeof tool.description !== 'string' || tool.description.trim() === '') {
    return 'description must be a non-empty string (the model reads it in its system prompt)';
  }
  if (typeof tool.call !== 'function') return 'call must be a function (args, { signal }) => value';
  return undefined;
}

function invalid(path: string, issue: string, cause?: unknown): RlmError {
  return new RlmError({
    code: 'config.invalid',
    message: `Tool module ${path}: ${issue}.`,
    details: { source: path, issues: [issue] },
    ...(cause === undefined ? {} : { cause }),
  });
}
