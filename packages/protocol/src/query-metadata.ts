import { RlmError } from './rlm-error.js';

/** What the model is told about its context before it sees any of it. */
export interface QueryMetadata {
  contextType: 'string' | 'array' | 'object';
  /** Length in characters of each chunk (array element or object value). */
  contextLengths: number[];
  contextTotalLength: number;
}

function invalid(
  path: string,
  expected: string,
  found: string,
): RlmError<'protocol.invalid_payload'> {
  return new RlmError({
    code: 'protocol.invalid_payload',
    message: `Invalid context at ${path}: expected ${expected}, got ${found}.`,
    details: { path, expected },
  });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Length of a chunk: its own length for strings, its JSON text's length otherwise. */
function chunkLength(value: unknown, path: string): number {
  if (typeof value === 'string') return value.length;
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // BigInts and cycles make JSON.stringify throw; they are as invalid as a bare function.
    json = undefined;
  }
  if (json === undefined) throw invalid(path, 'a JSON value', describe(value));
  return json.length;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayLengths(items: readonly unknown[]): number[] {
  if (items.length === 0) return [0];
  const first = items[0];
  // A list of chat messages: count only what each message says.
  if (isPlainObject(first) && 'content' in first) {
    return items.map((item, index) => {
      const content = isPlainObject(item) ? item['content'] : undefined;
      return content === undefined ? 0 : chunkLength(content, `context[${index}].content`);
    });
  }
  return items.map((item, index) => chunkLength(item, `context[${index}]`));
}

/**
 * Describes a context payload: a string, an array (of strings, objects or chat messages) or an
 * object. Anything else is a `protocol.invalid_payload` error naming where it was found.
 *
 * @example
 * queryMetadata('Hello, world!'); // { contextType: 'string', contextLengths: [13], contextTotalLength: 13 }
 */
export function queryMetadata(payload: unknown): QueryMetadata {
  let contextType: QueryMetadata['contextType'];
  let contextLengths: number[];
  if (typeof payload === 'string') {
    contextType = 'string';
    contextLengths = [payload.length];
  } else if (Array.isArray(payload)) {
    contextType = 'array';
    contextLengths = arrayLengths(payload);
  } else if (isPlainObject(payload)) {
    contextType = 'object';
    contextLengths = Object.entries(payload).map(([key, value]) =>
      chunkLength(value, `context.${key}`),
    );
  } else {
    throw invalid('context', 'a string, an array or an object', describe(payload));
  }
  const contextTotalLength = contextLengths.reduce((sum, length) => sum + length, 0);
  return { contextType, contextLengths, contextTotalLength };
}

/** How many chunk lengths the metadata message lists before summarising the rest. */
export const METADATA_MAX_LISTED_CHUNKS = 100;

/** The first user message of a run: what kind of context the REPL holds and how big it is. */
export function buildMetadataMessage(metadata: QueryMetadata): string {
  const { contextType, contextLengths, contextTotalLength } = metadata;
  const listed = contextLengths.slice(0, METADATA_MAX_LISTED_CHUNKS).join(', ');
  const others = contextLengths.length - METADATA_MAX_LISTED_CHUNKS;
  const more = others > 0 ? `, … [${others} others]` : '';
  const article = contextType === 'string' ? 'a' : 'an';
  return (
    `Your context is ${article} ${contextType} of ${contextTotalLength} characters in total, ` +
    `held in the REPL variable \`context\`. Chunk lengths: [${listed}${more}].`
  );
}
