import { describe, expect, it } from 'vitest';
import { toNumberedPlaceholders } from './to-numbered-placeholders.js';

describe('toNumberedPlaceholders', () => {
  it('numbers placeholders in order', () => {
    expect(toNumberedPlaceholders('SELECT a FROM t WHERE b = ? AND c IN (?, ?) LIMIT ?')).toBe(
      'SELECT a FROM t WHERE b = $1 AND c IN ($2, $3) LIMIT $4',
    );
  });

  it('leaves question marks in strings, quoted identifiers and comments alone', () => {
    const sql = `SELECT '?', 'it''s ?', "odd?name" -- why?
      FROM t /* ? */ WHERE a = ?`;
    expect(toNumberedPlaceholders(sql)).toBe(`SELECT '?', 'it''s ?', "odd?name" -- why?
      FROM t /* ? */ WHERE a = $1`);
  });

  it('returns SQL without placeholders unchanged', () => {
    expect(toNumberedPlaceholders("DELETE FROM runs WHERE status NOT IN ('queued')")).toBe(
      "DELETE FROM runs WHERE status NOT IN ('queued')",
    );
  });
});
