import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TOOL_DESCRIPTIONS } from './tool-descriptions.js';
import {
  contextLoadInputSchema,
  contextLoadOutputSchema,
  replExecInputSchema,
  replExecOutputSchema,
  replResetInputSchema,
  replResetOutputSchema,
  rlmQueryInputSchema,
  rlmQueryOutputSchema,
} from './tool-schemas.js';

/** The tools by name, with the zod schema that checks each call's arguments. */
export const TOOL_SCHEMAS = {
  rlm_query: { input: rlmQueryInputSchema, output: rlmQueryOutputSchema },
  context_load: { input: contextLoadInputSchema, output: contextLoadOutputSchema },
  repl_exec: { input: replExecInputSchema, output: replExecOutputSchema },
  repl_reset: { input: replResetInputSchema, output: replResetOutputSchema },
} as const;

/** A tool's name. */
export type RlmToolName = keyof typeof TOOL_SCHEMAS;

/** The names in the order `tools/list` gives them. */
export const RLM_TOOL_NAMES = Object.keys(TOOL_SCHEMAS) as RlmToolName[];

/** Keywords that describe a value rather than constrain it: they stay beside `anyOf`. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples']);

/**
 * `type: ["string", "null"]` becomes `anyOf: [{ type: "string", … }, { type: "null" }]`: the same
 * set of values, in the form strict validators (the MCP Inspector's `--strict`) accept.
 */
function withoutTypeArrays(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTypeArrays);
  if (typeof value !== 'object' || value === null) return value;
  const node: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) node[key] = withoutTypeArrays(child);
  if (!Array.isArray(node['type'])) return node;
  const { type: types, ...rest } = node as { type: string[] } & Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  const constraints: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(rest)) {
    (ANNOTATIONS.has(key) ? kept : constraints)[key] = child;
  }
  return {
    ...kept,
    anyOf: types.map((type) => (type === 'null' ? { type } : { type, ...constraints })),
  };
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  // draft-07 without `$schema`: what every client's validator compiles (the SDK's Ajv too).
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-7' });
  return { ...(withoutTypeArrays(rest) as object), type: 'object' } as Tool['inputSchema'];
}

/** Every tool's `tools/list` entry, built once: converting the schemas is not free. */
const TOOLS: readonly Tool[] = RLM_TOOL_NAMES.map((name) => ({
  name,
  description: TOOL_DESCRIPTIONS[name],
  inputSchema: jsonSchema(TOOL_SCHEMAS[name].input, 'input'),
  outputSchema: jsonSchema(TOOL_SCHEMAS[name].output, 'output'),
  annotations: {
    readOnlyHint: name !== 'repl_exec' && name !== 'repl_reset' && name !== 'context_load',
    openWorldHint: false,
  },
}));

/** The `tools/list` entries of `names`, with JSON Schemas made from the zod schemas. */
export function toolList(names: readonly RlmToolName[]): Tool[] {
  return TOOLS.filter((tool) => names.includes(tool.name as RlmToolName));
}
