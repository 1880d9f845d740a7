/**
 * Letters from other alphabets and letter blocks that a reader takes for a basic Latin letter,
 * grouped by the letter they pass for. NFKC has already run when this table is used, so
 * fullwidth forms (`ｉ`), mathematical alphanumerics (`𝐢`, `𝒾`), enclosed letters (`ⓘ`),
 * superscripts and most modifier letters are plain letters by then; accents are dropped with the
 * combining marks after NFD. What is left, and listed here, is what no normalization touches:
 * small capitals and other IPA letters, Greek, Cyrillic, Armenian, Cherokee, Lisu and Coptic
 * look-alikes. Keys are matched case-sensitively before lower-casing (a Greek capital eta `Η`
 * reads as `h`, its small form `η` as `n`).
 *
 * Digits are not here: layer numbers matter, and leet digits are read inside words elsewhere.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  a: 'ɑαаᴀΑАᎪꓮ⍺',
  b: 'ƅЬʙΒВᏴꓐᖯ',
  c: 'ϲсᴄϹСᏟꓚⲥꮯ',
  d: 'ԁᴅꓒᎠꓓ',
  e: 'еᴇΕЕᎬꓰҽ℮ⲉ',
  f: 'ꜰϜꓝ',
  g: 'ɡɢԍᏀꓖ',
  h: 'һʜНΗᎻꓧհ',
  i: 'ıɪіІΙɩιӀӏǀꓲᎥ',
  j: 'ϳјᴊЈᎫꓙ',
  k: 'ᴋκкΚКᏦꓗ',
  l: 'ʟꓡᏞ',
  m: 'ᴍМΜмϺᎷꓟ',
  n: 'ɴΝηꓠ',
  o: 'оοᴏОΟσօꓳⲟᎾᏫ',
  p: 'рρᴘРΡᏢꓑ⍴ⲣ',
  q: 'ԛꞯ',
  r: 'ʀгᴦꭇꓣᎡ',
  s: 'ѕꜱЅᏚꓢ',
  t: 'ᴛтΤТᎢꓔτ',
  u: 'ᴜυսꓴ',
  v: 'ᴠνѵꓦᏙ',
  w: 'ᴡԝѡωꓪᎳ',
  x: 'хχΧХꓫ',
  y: 'ʏуүΥУγꓬ',
  z: 'ᴢΖꓜᏃ',
};

/** Each look-alike character and the basic Latin letter it passes for. */
export const LOOK_ALIKE_LETTERS: ReadonlyMap<string, string> = new Map(
  Object.entries(LOOK_ALIKES).flatMap(([letter, shapes]) =>
    [...shapes].map((shape) => [shape, letter] as const),
  ),
);

/** `text` with every look-alike in the table replaced by the letter it passes for. */
export function replaceLookAlikes(text: string): string {
  let result = '';
  for (const character of text) result += LOOK_ALIKE_LETTERS.get(character) ?? character;
  return result;
}
