/** Code units per `String.fromCharCode` call: far below engines' argument limits. */
const CHUNK = 8192;

/**
 * Code units back to a string, unpaired surrogates included (a text decoder would replace them).
 * Lets a parser rewrite a long text in place, without one allocation per line or per match.
 */
export function fromCodeUnits(codes: Uint16Array): string {
  const parts: string[] = [];
  for (let start = 0; start < codes.length; start += CHUNK) {
    // Not a spread: spreading a typed array goes through its iterator, several times slower.
    parts.push(Reflect.apply(String.fromCharCode, null, codes.subarray(start, start + CHUNK)));
  }
  return parts.join('');
}

/** The code units of `text`, to be rewritten and turned back with `fromCodeUnits`. */
export function toCodeUnits(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let index = 0; index < text.length; index++) codes[index] = text.charCodeAt(index);
  return codes;
}
