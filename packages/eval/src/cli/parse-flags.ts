import { RlmError } from '@rlm/protocol';

/** Raw flags: `--name value`, `--name=value`, or `--name` for booleans; the rest are positionals. */
export interface ParsedFlags {
  values: Record<string, string | true>;
  positionals: string[];
}

/**
 * Splits argv into flags and positionals. Only names in `valueFlags` take a value and only names in
 * `booleanFlags` may stand alone; anything else is a usage error naming the flag.
 *
 * @throws RlmError `cli.usage` naming the offending flag
 */
export function parseFlags(
  argv: readonly string[],
  { valueFlags, booleanFlags }: { valueFlags: readonly string[]; booleanFlags: readonly string[] },
): ParsedFlags {
  const values: Record<string, string | true> = {};
  const positionals: string[] = [];
  let index = 0;
  while (index < argv.length) {
    const token = argv[index] as string;
    index += 1;
    if (!token.startsWith('--')) {
      positionals.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = token.slice(2, equals < 0 ? undefined : equals);
    if (booleanFlags.includes(name) && equals < 0) {
      values[name] = true;
      continue;
    }
    if (!valueFlags.includes(name))
      throw usage(`--${name}`, 'is not a known option (see rlm eval --help)');
    values[name] = flagValue(name, equals < 0 ? argv[index] : token.slice(equals + 1));
    if (equals < 0) index += 1;
  }
  return { values, positionals };
}

function flagValue(name: string, value: string | undefined): string {
  if (value === undefined || value === '') throw usage(`--${name}`, 'expects a value');
  return value;
}

/** A `cli.usage` error for `option`. */
export function usage(option: string, problem: string): RlmError<'cli.usage'> {
  return new RlmError({ code: 'cli.usage', message: `${option} ${problem}`, details: { option } });
}
