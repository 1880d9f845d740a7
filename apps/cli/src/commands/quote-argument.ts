/** Arguments that need no quoting in a POSIX shell. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `argument` as a POSIX shell reads it back: as is when plain, else in single quotes. */
export function quoteArgument(argument: string): string {
  return PLAIN.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`;
}
