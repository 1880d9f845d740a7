/**
 * Rewrites the `?` placeholders of the shared store SQL to Postgres' `$1, $2, …`, leaving any `?`
 * inside a quoted string, a quoted identifier or a comment alone.
 *
 * @example
 * toNumberedPlaceholders("SELECT * FROM t WHERE a = ? AND b <> '?' AND c = ?");
 * // "SELECT * FROM t WHERE a = $1 AND b <> '?' AND c = $2"
 */
export function toNumberedPlaceholders(sql: string): string {
  let output = '';
  let count = 0;
  let index = 0;
  while (index < sql.length) {
    const char = sql[index] as string;
    const skipTo = endOfQuotedOrComment(sql, index);
    if (skipTo !== undefined) {
      output += sql.slice(index, skipTo);
      index = skipTo;
    } else if (char === '?') {
      count += 1;
      output += `$${count}`;
      index += 1;
    } else {
      output += char;
      index += 1;
    }
  }
  return output;
}

/** Where a quoted string, quoted identifier or comment starting at `start` ends (exclusive). */
function endOfQuotedOrComment(sql: string, start: number): number | undefined {
  const char = sql[start];
  if (char === "'" || char === '"') {
    // A doubled quote is an escaped quote inside, so scanning on past it is right either way.
    const close = sql.indexOf(char, start + 1);
    return close === -1 ? sql.length : close + 1;
  }
  if (char === '-' && sql[start + 1] === '-') {
    const newline = sql.indexOf('\n', start);
    return newline === -1 ? sql.length : newline;
  }
  if (char === '/' && sql[start + 1] === '*') {
    const close = sql.indexOf('*/', start + 2);
    return close === -1 ? sql.length : close + 2;
  }
  return undefined;
}
