import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, HtmlFragment, html, joinHtml, trustedHtml } from './html.js';

/** Strings full of what breaks out of text and attributes. */
const risky = fc.string({
  unit: fc.constantFrom('<', '>', '&', '"', "'", '/', '=', 'a', ' ', '\n', 'script', '&amp;'),
});

/** Markup a reader would see as a tag, an attribute break or an entity. */
const UNESCAPED = /[<>"']|&(?!(amp|lt|gt|quot|#39);)/;

describe('html', () => {
  it('escapes every interpolated string and number, wherever it stands', () => {
    fc.assert(
      fc.property(risky, risky, fc.integer(), (text, attribute, number) => {
        const markup = html`<p title="${attribute}">${text} ${number}</p>`.toString();
        expect(markup).toBe(
          `<p title="${escapeHtml(attribute)}">${escapeHtml(text)} ${escapeHtml(String(number))}</p>`,
        );
        const inserted = markup.slice('<p title="'.length, -'</p>'.length).replace('">', ' ');
        expect(inserted).not.toMatch(UNESCAPED);
      }),
    );
  });

  it('escapes each item of an interpolated list, and the separator of joinHtml', () => {
    fc.assert(
      fc.property(fc.array(risky, { maxLength: 5 }), risky, (items, separator) => {
        expect(html`${items}`.toString()).toBe(items.map(escapeHtml).join(''));
        expect(joinHtml(items, separator).toString()).toBe(
          items.map(escapeHtml).join(escapeHtml(separator)),
        );
      }),
    );
  });

  it('passes only fragments it made (html, joinHtml, trustedHtml) unescaped', () => {
    const bold = html`<b>${'<i>'}</b>`;
    expect(html`<p>${bold}</p>`.toString()).toBe('<p><b>&lt;i&gt;</b></p>');
    expect(html`<style>${trustedHtml('a>b{}')}</style>`.toString()).toBe('<style>a>b{}</style>');
    expect(html`${[bold, '<']}`.toString()).toBe('<b>&lt;i&gt;</b>&lt;');
    // Look-alikes are text: an object with the same methods, or a string holding markup.
    const forged = { toString: () => '<script>', markup: '<script>' };
    expect(HtmlFragment.is(forged)).toBe(false);
    expect(html`${forged as unknown as string}`.toString()).not.toContain('<script>');
    expect(html`${bold.toString()}`.toString()).toBe('&lt;b&gt;&amp;lt;i&amp;gt;&lt;/b&gt;');
  });

  it('cannot be constructed outside this module', () => {
    const Fragment = HtmlFragment as unknown as new (mint: symbol, markup: string) => HtmlFragment;
    expect(() => new Fragment(Symbol('rlm.html-fragment'), '<script>')).toThrow(TypeError);
  });
});
