/** A JSON Schema as MCP servers send it (an object; anything else describes no shape). */
type Schema = Readonly<Record<string, unknown>>;

/** Characters of the parameter notes of one tool in the prompt. */
export const MAX_PARAMETER_NOTES_CHARS = 1_000;

const MAX_DEPTH = 2;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function properties(schema: Schema): [string, Schema][] {
  const props = schema['properties'];
  if (!isSchema(props)) return [];
  return Object.entries(props).map(([name, value]) => [name, isSchema(value) ? value : {}]);
}

function required(schema: Schema): Set<string> {
  const list = schema['required'];
  return new Set(Array.isArray(list) ? list.filter((name) => typeof name === 'string') : []);
}

function literal(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}

function union(schemas: unknown, depth: number): string | undefined {
  if (!Array.isArray(schemas)) return undefined;
  return schemas.map((item) => typeText(isSchema(item) ? item : {}, depth)).join(' | ');
}

function objectText(schema: Schema, depth: number): string {
  const props = properties(schema);
  if (props.length === 0) return 'object';
  if (depth >= MAX_DEPTH) return '{…}';
  const needed = required(schema);
  const fields = props.map(
    ([name, value]) => `${name}${needed.has(name) ? '' : '?'}: ${typeText(value, depth + 1)}`,
  );
  return `{ ${fields.join(', ')} }`;
}

/** A TypeScript-like reading of a JSON Schema, shallow: enough for a model to call correctly. */
function typeText(schema: Schema, depth: number): string {
  if ('const' in schema) return literal(schema['const']);
  const choices = schema['enum'];
  if (Array.isArray(choices)) return choices.map(literal).join(' | ');
  const alternatives = union(schema['anyOf'] ?? schema['oneOf'], depth);
  if (alternatives !== undefined) return alternatives;
  const type = schema['type'];
  if (Array.isArray(type))
    return type.map((one) => typeText({ ...schema, type: one }, depth)).join(' | ');
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return type;
    case 'integer':
      return 'number';
    case 'array': {
      const items = schema['items'];
      const inner = isSchema(items) ? typeText(items, depth + 1) : 'unknown';
      return /[ |]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
    }
    case 'object':
      return objectText(schema, depth);
    default:
      return properties(schema).length > 0 ? objectText(schema, depth) : 'unknown';
  }
}

/**
 * The call shape of an MCP tool: one object argument, read from its input schema, such as
 * `({ city: string, units?: "c" | "f" })`; `()` when it takes no arguments.
 */
export function toolSignature(inputSchema: unknown): string {
  const schema = isSchema(inputSchema) ? inputSchema : {};
  if (properties(schema).length === 0) return '()';
  return `(${objectText(schema, 0)})`;
}

/** The descriptions of an input schema's top-level parameters, one clause each, capped. */
export function parameterNotes(inputSchema: unknown): string {
  const schema = isSchema(inputSchema) ? inputSchema : {};
  const notes = properties(schema)
    .filter(([, value]) => typeof value['description'] === 'string')
    .map(([name, value]) => `\`${name}\`: ${String(value['description']).replace(/\s+/g, ' ')}`);
  const text = notes.length === 0 ? '' : `Parameters: ${notes.join('; ')}.`;
  return text.length > MAX_PARAMETER_NOTES_CHARS
    ? `${text.slice(0, MAX_PARAMETER_NOTES_CHARS)}…`
    : text;
}
