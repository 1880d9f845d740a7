/**
 * A guest pattern the host has proved it runs as QuickJS would, compiled for V8.
 * `names[i]` names capture i (null when unnamed, index 0 is always null); `undefined` when the
 * pattern names no group.
 */
export interface HostRegExpPlan {
  /** The pattern with `g` and `d` (searches from `lastIndex`, reports every capture's span). */
  readonly search: RegExp;
  /** The pattern with `g` only (a global match needs no capture spans). */
  readonly all: RegExp;
  /** The pattern without `d`, `g`, `y` (what a split copies, made sticky by the split itself). */
  readonly plain: RegExp;
  /** How many capture groups it has. */
  readonly captures: number;
  readonly names: (string | null)[] | undefined;
  /** `u` or `v`: an empty match steps over a whole code point. */
  readonly fullUnicode: boolean;
}

/** Compiled plans by flags and source; `null` marks a pattern left to QuickJS. */
const plans = new Map<string, HostRegExpPlan | null>();
const MAX_PLANS = 256;

/**
 * The host's plan for a guest pattern (source and flags as the guest's RegExp reports them), or
 * `undefined` when QuickJS must run it. Left to QuickJS:
 * - what V8 does not compile (QuickJS knows newer syntax: modifiers, duplicate group names);
 * - Unicode property escapes, and case-insensitive patterns with non-ASCII characters or
 *   escapes that can name them, or with `v`: the two engines carry different Unicode versions;
 * - backreferences and quantified groups that contain a quantifier or an alternative: the
 *   shapes whose backtracking can explode. QuickJS's search is stopped by the block's limits,
 *   a host search cannot be;
 * - group names with escapes, or groups the scan below counts differently from V8.
 */
export function hostRegExpPlan(source: string, flags: string): HostRegExpPlan | undefined {
  const key = `${flags}/${source}`;
  const known = plans.get(key);
  if (known !== undefined) return known ?? undefined;
  const plan = makePlan(source, flags);
  if (plans.size >= MAX_PLANS) plans.clear();
  plans.set(key, plan ?? null);
  return plan;
}

function makePlan(source: string, flags: string): HostRegExpPlan | undefined {
  if (!/^[dgimsuv]*$/.test(flags)) return undefined;
  const scanned = scanPattern(source, flags);
  if (scanned === undefined) return undefined;
  const base = flags.replace(/[dgy]/g, '');
  let search: RegExp;
  let all: RegExp;
  let plain: RegExp;
  let probe: RegExpExecArray | null;
  try {
    search = new RegExp(source, `${base}dg`);
    all = new RegExp(source, `${base}g`);
    plain = new RegExp(source, base);
    // Matches the empty string whatever the pattern: shows V8's count and names of groups.
    probe = new RegExp(`(?:${source})|(?:)`, base).exec('');
  } catch {
    return undefined;
  }
  if (probe === null || probe.length !== scanned.length) return undefined;
  const named = scanned.filter((name) => name !== null);
  const v8Names = probe.groups === undefined ? [] : Object.keys(probe.groups);
  if (named.length !== v8Names.length || !named.every((name) => v8Names.includes(name))) {
    return undefined;
  }
  return {
    search,
    all,
    plain,
    captures: probe.length - 1,
    names: named.length === 0 ? undefined : scanned,
    fullUnicode: flags.includes('u') || flags.includes('v'),
  };
}

const QUANTIFIER = /^(?:[*+?]|\{\d)/;

/**
 * Walks a pattern once: its capture names by number (null for unnamed, index 0 for the whole
 * match), or `undefined` when it has a shape left to QuickJS (see `hostRegExpPlan`).
 */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one tokenizer loop reads best whole
function scanPattern(source: string, flags: string): (string | null)[] | undefined {
  const caseless = flags.includes('i');
  const sets = flags.includes('v');
  if (caseless && (sets || /[\u0080-\uffff]/.test(source))) return undefined;
  const names: (string | null)[] = [null];
  /** Open groups: whether each holds a quantifier or an alternative so far. */
  const open: { risky: boolean }[] = [{ risky: false }];
  let classDepth = 0;
  for (let at = 0; at < source.length; at++) {
    const char = source[at] as string;
    if (char === '\\') {
      const next = source[at + 1] ?? '';
      if (next === 'p' || next === 'P' || next === 'k' || /[1-9]/.test(next)) return undefined;
      if (caseless && /[uxc]/.test(next)) return undefined;
      at++;
      continue;
    }
    if (classDepth > 0) {
      if (char === ']') classDepth--;
      else if (char === '[' && sets) classDepth++;
      continue;
    }
    const top = open[open.length - 1] as { risky: boolean };
    if (char === '[') classDepth = 1;
    else if (char === '|') top.risky = true;
    else if (QUANTIFIER.test(source.slice(at, at + 2))) top.risky = true;
    else if (char === '(') {
      open.push({ risky: false });
      if (source[at + 1] !== '?') names.push(null);
      else if (source[at + 2] === '<' && source[at + 3] !== '=' && source[at + 3] !== '!') {
        const close = source.indexOf('>', at + 3);
        if (close < 0) return undefined;
        const name = source.slice(at + 3, close);
        if (name.includes('\\')) return undefined;
        names.push(name);
        at = close;
      } else {
        // Past `?:`, `?=`, `?!` or `?<=`, `?<!`: that `?` is no quantifier.
        at += source[at + 2] === '<' ? 3 : 2;
      }
    } else if (char === ')') {
      const group = open.pop();
      if (group === undefined || open.length === 0) return undefined;
      const quantified = QUANTIFIER.test(source.slice(at + 1, at + 3));
      if (group.risky && quantified) return undefined;
      if (group.risky || quantified) (open[open.length - 1] as { risky: boolean }).risky = true;
    }
  }
  return open.length === 1 ? names : undefined;
}
