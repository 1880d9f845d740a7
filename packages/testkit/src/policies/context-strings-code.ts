/**
 * REPL code that declares `name` as every string in the run's contexts, in order: `context` and
 * any `context_1 … context_N`, walking arrays and objects (a directory context is an object of
 * file texts, a document set an array). Other leaf values (numbers, booleans) count as their text.
 * Policies search these strings instead of `String(context)`, which turns an object into
 * `[object Object]`.
 *
 * @example
 * `${contextStringsCode('__texts')}\nconst lines = __texts.flatMap((text) => text.split('\\n'));`
 */
export function contextStringsCode(name: string): string {
  return `
const ${name} = [];
{
  const collect = (value) => {
    if (typeof value === 'string') ${name}.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value !== null && typeof value === 'object') for (const key of Object.keys(value)) collect(value[key]);
    else if (value !== undefined && value !== null) ${name}.push(String(value));
  };
  collect(context);
  for (let index = 1; typeof globalThis['context_' + index] !== 'undefined'; index += 1) {
    collect(globalThis['context_' + index]);
  }
}`;
}
