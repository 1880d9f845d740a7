import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import { hostStringCallsHandled } from './engine/host-string-ops.js';
import type { Sandbox } from './sandbox.js';

/**
 * The host's string and RegExp methods against QuickJS's own: the same guest code on the same
 * strings, once with the methods done by the host (every held string counts as long) and once
 * with them off, must print the same thing.
 */
const OFF = 2 ** 30;

let fast: Sandbox;
let oracle: Sandbox;

beforeAll(async () => {
  fast = await createSandbox({ isolation: 'inline', limits: { nativeStringMinChars: 0 } });
  oracle = await createSandbox({ isolation: 'inline', limits: { nativeStringMinChars: OFF } });
});

afterAll(async () => {
  await fast.dispose();
  await oracle.dispose();
});

/** Runs `code` over `text` in both sandboxes: what each printed (or threw). */
async function both(text: string, code: string): Promise<[string, string]> {
  const outputs: string[] = [];
  for (const sandbox of [fast, oracle]) {
    await sandbox.setVariable('text', text);
    const result = await sandbox.execute(code);
    outputs.push(result.stdout + (result.error === null ? '' : `!${result.error.message}`));
  }
  return [outputs[0] as string, outputs[1] as string];
}

/** Prints a match array with everything QuickJS puts on it. */
const DESCRIBE = `
var describeMatch = (m) => m === null ? null : {
  items: Array.from(m, (v) => v === undefined ? '<undefined>' : v),
  keys: Reflect.ownKeys(m), index: m.index, input: m.input === text, proto: Object.getPrototypeOf(m) === Array.prototype,
  groups: m.groups === undefined ? '<undefined>' : [Object.getPrototypeOf(m.groups), Object.entries(m.groups)],
  indices: m.indices === undefined ? '<undefined>' : [Array.from(m.indices), Reflect.ownKeys(m.indices),
    m.indices.groups === undefined ? '<undefined>' : Object.entries(m.indices.groups)],
};`;

const PIECES = [
  'a',
  'b',
  'A',
  'B',
  '0',
  '7',
  ' ',
  '\n',
  '\r\n',
  '-',
  '_',
  'é',
  'ß',
  '\u212a',
  '\u017f',
  '😀',
  '\ud83d',
  '\ude00',
  'ab',
  'aab',
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

const ATOMS = [
  'a',
  'b',
  'A',
  '0',
  ' ',
  '-',
  '.',
  '\\d',
  '\\w',
  '\\s',
  '\\b',
  '\\n',
  '[ab]',
  '[^a]',
  '[a-z]',
  '^',
  '$',
  '😀',
  'é',
  '\\u{1F600}',
];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{1,2}', '*?', '+?'];

const pattern: fc.Arbitrary<string> = fc
  .letrec((tie) => ({
    atom: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...ATOMS) },
      { weight: 1, arbitrary: tie('group') },
    ),
    piece: fc
      .tuple(tie('atom'), fc.constantFrom(...QUANTIFIERS))
      .map(([atom, quantifier]) => `${atom}${quantifier}`),
    sequence: fc
      .array(tie('piece'), { minLength: 1, maxLength: 4 })
      .map((pieces) => pieces.join('')),
    alternatives: fc
      .array(tie('sequence'), { minLength: 1, maxLength: 2 })
      .map((sequences) => sequences.join('|')),
    group: fc
      .tuple(fc.constantFrom('(', '(?:', '(?<n>', '(?=', '(?<='), tie('alternatives'))
      .map(([open, inner]) => `${open}${inner})`),
  }))
  .alternatives.map((source) => {
    let count = 0;
    return (source as string).replace(/\(\?<n>/g, () => `(?<n${count++}>`);
  });

const flags = fc
  .subarray(['d', 'g', 'i', 'm', 's', 'u', 'y'])
  .chain((chosen) =>
    fc
      .boolean()
      .map((sets) =>
        sets && chosen.includes('u') ? chosen.join('').replace('u', 'v') : chosen.join(''),
      ),
  );

const lastIndex = fc.oneof(
  fc.integer({ min: -2, max: 45 }),
  fc.constantFrom('1.5', 'NaN', 'Infinity', '-0'),
);

describe('native string methods give what QuickJS gives', () => {
  it('for RegExp exec, test, search, match, matchAll, replace and split', async () => {
    const before = hostStringCallsHandled();
    await fc.assert(
      fc.asyncProperty(
        fc.record({ subject: text, source: pattern, flag: flags, start: lastIndex }),
        async ({ subject, source, flag, start }) => {
          const code = `${DESCRIBE}
var out = [];
var re;
try { re = new RegExp(${JSON.stringify(source)}, ${JSON.stringify(flag)}); } catch (e) { out.push(String(e)); }
var at = ${start};
if (re !== undefined) {
  re.lastIndex = at; out.push(describeMatch(re.exec(text)), re.lastIndex);
  re.lastIndex = at; out.push(re.test(text), re.lastIndex);
  re.lastIndex = at; out.push(text.search(re), re.lastIndex);
  re.lastIndex = at; out.push(text.match(re) === null ? null : describeMatch(text.match(re)), re.lastIndex);
  re.lastIndex = at; var all = text.match(re); out.push(all === null ? null : Array.from(all), re.lastIndex);
  if (re.global) { re.lastIndex = at; out.push(Array.from(text.matchAll(re), describeMatch), re.lastIndex); }
  re.lastIndex = at; out.push(text.replace(re, '[$&|$1|$<n0>|$\`]'), re.lastIndex);
  var execBefore = RegExp.prototype.exec;
  re.lastIndex = at; out.push(text.split(re), text.split(re, 2), re.lastIndex);
  re.lastIndex = at; out.push(text.replaceAll(re.global ? re : /a/g, '<$&>'), RegExp.prototype.exec === execBefore);
  re.lastIndex = at;
  for (var k = 0; k < 60; k++) {
    var m = re.exec(text); out.push(describeMatch(m), re.lastIndex);
    if (m === null || !(re.global || re.sticky)) break;
    if (m[0] === '') re.lastIndex++;
  }
}
print(JSON.stringify(out));`;
          const [fastOut, oracleOut] = await both(subject, code);
          expect(fastOut).toBe(oracleOut);
        },
      ),
      { numRuns: 250 },
    );
    // Most generated patterns are simple enough for the host: the comparison covered its path.
    expect(hostStringCallsHandled() - before).toBeGreaterThan(250);
  });

  it('for indexOf, lastIndexOf and includes', async () => {
    const before = hostStringCallsHandled();
    const search = fc.array(fc.constantFrom(...PIECES), { maxLength: 3 }).map((p) => p.join(''));
    const position = fc.oneof(
      fc.integer({ min: -3, max: 45 }).map(String),
      fc.constantFrom('undefined', 'NaN', 'Infinity', '-Infinity', '2.7'),
    );
    await fc.assert(
      fc.asyncProperty(text, search, position, async (subject, needle, at) => {
        const n = JSON.stringify(needle);
        const code = `print(JSON.stringify([text.indexOf(${n}), text.indexOf(${n}, ${at}),
          text.lastIndexOf(${n}), text.lastIndexOf(${n}, ${at}),
          text.includes(${n}), text.includes(${n}, ${at})]))`;
        const [fastOut, oracleOut] = await both(subject, code);
        expect(fastOut).toBe(oracleOut);
      }),
      { numRuns: 150 },
    );
    expect(hostStringCallsHandled() - before).toBeGreaterThanOrEqual(150 * 6);
  });
});
