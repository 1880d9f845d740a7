/**
 * A whole number with a comma between each group of three digits (`20000` → `"20,000"`), as
 * `toLocaleString('en-US')` writes it. Written out because the first `toLocaleString` call of a
 * process sets up ICU's number formatting (~12 ms of CPU), and the system prompt's text needs only
 * this one shape of number.
 */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`groupDigits takes a safe integer, got ${value}`);
  }
  const digits = String(Math.abs(value));
  let grouped = '';
  for (let end = digits.length; end > 0; end -= 3) {
    const group = digits.slice(Math.max(0, end - 3), end);
    grouped = grouped === '' ? group : `${group},${grouped}`;
  }
  return value < 0 ? `-${grouped}` : grouped;
}
