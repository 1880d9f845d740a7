import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets, redactText } from './redact-secrets.js';

describe('redactText', () => {
  it('redacts every kind of key and bearer token', () => {
    const text = [
      'anthropic sk-ant-abcdefghijklmnop0123',
      'openai sk-abcdefghijklmnopqrst',
      'slack xoxb-1234567890-abcdef',
      'github ghp_abcdefghijklmnopqrstuvwxyz',
      'aws AKIAABCDEFGHIJKLMNOP',
      'header Bearer abcdefghijklmnopqrstuvwx',
    ].join('\n');
    expect(redactText(text)).toBe(
      [
        `anthropic ${REDACTED}`,
        `openai ${REDACTED}`,
        `slack ${REDACTED}`,
        `github ${REDACTED}`,
        `aws ${REDACTED}`,
        `header Bearer ${REDACTED}`,
      ].join('\n'),
    );
  });

  it('returns text without any secret marker unchanged', () => {
    const text = 'record 1 billing refund All work and no play makes a dull model.\n'.repeat(500);
    expect(redactText(text)).toBe(text);
  });

  it('leaves marker-holding text that is no secret unchanged', () => {
    const text = 'snake_case names, a risk-free AKIA note, Bearer short, task-sk-1 and xox.';
    expect(redactText(text)).toBe(text);
  });
});

describe('redactSecrets', () => {
  it('redacts secret-named fields and secret-looking strings in a deep copy', () => {
    const value = { apiKey: 'plain', nested: [{ note: 'use sk-abcdefghijklmnopqrst' }], n: 1 };
    expect(redactSecrets(value)).toEqual({
      apiKey: REDACTED,
      nested: [{ note: `use ${REDACTED}` }],
      n: 1,
    });
    expect(value.nested[0]?.note).toBe('use sk-abcdefghijklmnopqrst');
  });
});
