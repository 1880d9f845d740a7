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

/**
 * The Python form of `contextStringsCode`: declares the list `name` as every string in `context`
 * and any `context_1 … context_N`, walking lists, tuples and dicts; other leaf values count as
 * their `str`.
 */
export function pythonContextStringsCode(name: string): string {
  return `
${name} = []
def __collect_strings(value):
    if isinstance(value, str):
        ${name}.append(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            __collect_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            __collect_strings(item)
    elif value is not None:
        ${name}.append(str(value))
__collect_strings(context)
__index = 1
while 'context_' + str(__index) in globals():
    __collect_strings(globals()['context_' + str(__index)])
    __index += 1`;
}
