import { isReservedName, type JsonValue, jsonValueSchema, RlmError } from '@rlm/protocol';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Reserved names the host may set (payloads, histories, run metadata); the rest are scaffold functions. */
const SETTABLE_RESERVED = /^((context|history)(_\d+)?|__rlm)$/;

/**
 * Checks a `setVariable` call: the name must be an identifier and not a scaffold function, and
 * the value must be JSON.
 *
 * @throws RlmError `sandbox.invalid_value`
 */
export function assertSettable(
  name: string,
  value: JsonValue,
  functionNames: readonly string[],
): void {
  if (!IDENTIFIER.test(name)) {
    throw invalid(name, 'the name must be a JavaScript identifier');
  }
  if ((isReservedName(name) && !SETTABLE_RESERVED.test(name)) || functionNames.includes(name)) {
    throw invalid(name, 'the name belongs to a scaffold function');
  }
  if (!jsonValueSchema.safeParse(value).success) {
    throw invalid(name, 'the value must be JSON (string, number, boolean, null, array, object)');
  }
}

function invalid(name: string, reason: string): RlmError {
  return new RlmError({
    code: 'sandbox.invalid_value',
    message: `cannot set variable ${JSON.stringify(name)}: ${reason}`,
    details: { name, reason },
  });
}

/** The error `execute()` and friends reject with after `dispose()`. */
export function disposedError(): RlmError {
  return new RlmError({
    code: 'sandbox.disposed',
    message: 'the sandbox was disposed',
    details: {},
  });
}
