/**
 * Escapes text for HTML element content and quoted attribute values: every character that could
 * open a tag, end an attribute or start an entity is replaced.
 */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Only this module can make a fragment, so markup cannot be forged by an object of the same shape. */
const MINT = Symbol('rlm.html-fragment');

/**
 * Markup that may go into a page as it is: the result of `html` (every interpolation escaped) or
 * of `trustedHtml` (a constant the caller vouches for). Anything else is text and gets escaped.
 */
export class HtmlFragment {
  readonly #markup: string;

  /** Not for callers: fragments come from `html`, `joinHtml` and `trustedHtml`. */
  constructor(mint: typeof MINT, markup: string) {
    if (mint !== MINT) throw new TypeError('HtmlFragment: use html`…` or trustedHtml()');
    this.#markup = markup;
  }

  /** True only for fragments made by this module (a look-alike object is text). */
  static is(value: unknown): value is HtmlFragment {
    return typeof value === 'object' && value !== null && #markup in value;
  }

  /** The markup. */
  toString(): string {
    return this.#markup;
  }
}

/** What `html` accepts in `${…}`: text and numbers (escaped), fragments (kept), lists of either. */
export type HtmlValue = string | number | HtmlFragment | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (HtmlFragment.is(value)) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  // Strings, numbers, and whatever untyped code passes: all of it is text.
  return escapeHtml(String(value));
}

/**
 * The tagged template every piece of the trace view is written with: the literal parts are the
 * markup, and every interpolation is escaped unless it is itself an `HtmlFragment`. A forgotten
 * `escapeHtml` cannot happen, because there is nothing to forget.
 *
 * @example
 * html`<pre class="code">${block.code}</pre>`; // `<script>` in the code arrives as `&lt;script&gt;`
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): HtmlFragment {
  let markup = strings[0] ?? '';
  for (const [index, value] of values.entries()) {
    markup += render(value) + (strings[index + 1] ?? '');
  }
  return new HtmlFragment(MINT, markup);
}

/** `parts` one after another with `separator` (escaped like any text) between them. */
export function joinHtml(parts: readonly HtmlValue[], separator: string): HtmlFragment {
  return new HtmlFragment(MINT, parts.map(render).join(escapeHtml(separator)));
}

/**
 * Markup that passes unescaped: only for constants written in this code base (a style sheet),
 * never for text that came from a run, a model or a user.
 */
export function trustedHtml(markup: string): HtmlFragment {
  return new HtmlFragment(MINT, markup);
}
