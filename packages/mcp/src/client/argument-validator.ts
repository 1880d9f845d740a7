import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Checks a tool call's arguments: `null` when they fit, else one line per problem. */
export type ArgumentValidator = (args: JsonValue) => string[] | null;

/** Issues listed per refused call. */
export const MAX_ARGUMENT_ISSUES = 5;

// ajv-formats is CommonJS: its default export is the plugin under NodeNext's interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

function usesDraft07(schema: Readonly<Record<string, unknown>>): boolean {
  const meta = schema['$schema'];
  return typeof meta === 'string' && /draft-0[4-7]/.test(meta);
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const missing = error.keyword === 'required' ? String(error.params['missingProperty']) : null;
  const extra =
    error.keyword === 'additionalProperties' ? String(error.params['additionalProperty']) : null;
  const all = [...path, ...(missing === null ? [] : [missing]), ...(extra === null ? [] : [extra])];
  return all.length === 0 ? '(arguments)' : all.join('.');
}

function issueOf(error: ErrorObject): string {
  if (error.keyword === 'required') return `${fieldOf(error)}: is required`;
  if (error.keyword === 'additionalProperties') return `${fieldOf(error)}: is not a parameter`;
  const allowed =
    error.keyword === 'enum' ? ` (${JSON.stringify(error.params['allowedValues'])})` : '';
  return `${fieldOf(error)}: ${error.message ?? 'is invalid'}${allowed}`;
}

/**
 * A validator for one tool's input schema (JSON Schema 2020-12 unless the schema names an older
 * draft), with the common formats (`email`, `uri`, `date-time`, …).
 *
 * @throws RlmError `config.invalid` when the server sent a schema that does not compile
 */
export function argumentValidator(
  inputSchema: Readonly<Record<string, unknown>>,
  { tool, server }: { tool: string; server: string },
): ArgumentValidator {
  const ajv = usesDraft07(inputSchema)
    ? new Ajv({ allErrors: true, strict: false })
    : new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(inputSchema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const issue = `tool "${tool}": its input schema does not compile (${reason}); leave it out with include`;
    throw new RlmError({
      code: 'config.invalid',
      message: `MCP server ${server}: ${issue}`,
      details: { source: `MCP server ${server}`, issues: [issue] },
      cause: error,
    });
  }
  return (args) => {
    if (validate(args)) return null;
    const issues = (validate.errors ?? []).map(issueOf);
    const unique = [...new Set(issues)];
    return unique.length > MAX_ARGUMENT_ISSUES
      ? [
          ...unique.slice(0, MAX_ARGUMENT_ISSUES),
          `… and ${unique.length - MAX_ARGUMENT_ISSUES} more`,
        ]
      : unique;
  };
}
