import { isReservedName, type JsonValue, jsonValueSchema, RlmError } from '@rlm/protocol';
import { CONTEXT_HELPER_NAMES } from '@rlm/sandbox/context-ops';

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Reserved names the host may set (payloads, histories, run metadata); the rest are scaffold functions. */
const SETTABLE_RESERVED = /^((context|history)(_\d+)?|__rlm)$/;
/** Names the scaffold defines itself; a host function may not take them. */
const SCAFFOLD_NAMES = ['FINAL', 'FINAL_VAR', 'SHOW_VARS', 'print', 'console', '__rlm'];
const PAYLOAD_NAME = /^(context|history)(_\d+)?$/;

/** True for a name Python code can use as a variable (ASCII identifiers, no keywords). */
export function isPythonName(name: string): boolean {
  return IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name);
}

/**
 * Checks the host functions' names: Python identifiers the scaffold does not define itself.
 *
 * @throws RlmError `config.invalid`
 */
export function assertFunctionNames(names: readonly string[]): void {
  const issues = names.flatMap((name) => {
    if (!isPythonName(name)) return [`functions.${name}: not a Python identifier (or a keyword)`];
    const taken =
      SCAFFOLD_NAMES.includes(name) ||
      CONTEXT_HELPER_NAMES.includes(name) ||
      PAYLOAD_NAME.test(name);
    return taken ? [`functions.${name}: the sandbox defines ${name} itself`] : [];
  });
  if (issues.length === 0) return;
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid sandbox options:\n${issues.join('\n')}`,
    details: { source: 'Python sandbox options', issues },
  });
}

/**
 * Checks a `setVariable` call: a Python identifier that is not a scaffold function, and a JSON value.
 *
 * @throws RlmError `sandbox.invalid_value`
 */
export function assertSettable(
  name: string,
  value: JsonValue,
  functionNames: readonly string[],
): void {
  const invalid = (reason: string): RlmError =>
    new RlmError({
      code: 'sandbox.invalid_value',
      message: `cannot set variable ${JSON.stringify(name)}: ${reason}`,
      details: { name, reason },
    });
  if (!isPythonName(name))
    throw invalid('the name must be a Python identifier (and not a keyword)');
  if ((isReservedName(name) && !SETTABLE_RESERVED.test(name)) || functionNames.includes(name)) {
    throw invalid('the name belongs to a scaffold function');
  }
  if (!jsonValueSchema.safeParse(value).success) {
    throw invalid('the value must be JSON (string, number, boolean, null, array, object)');
  }
}
