import type { JsonValue } from '@rlm/protocol';
import type { z } from 'zod';
import type { OutputSpec } from './output-spec.js';

/** Issues shown to the model for one refused answer. */
export const MAX_ANSWER_ISSUES = 8;
/** Characters of the offending value shown per issue. */
export const MAX_ISSUE_INPUT_CHARS = 80;
/** Characters of the whole note about a refused answer. */
export const MAX_ANSWER_NOTE_CHARS = 2_000;

/**
 * A typed answer's check: the accepted value with its JSON text, or a note for the model and a
 * `mismatch` for people: a predicate for "the answer …" saying where and why it failed.
 */
export type AnswerCheck =
  | { ok: true; value: unknown; json: string }
  | { ok: false; note: string; mismatch: string };

type Parsed = { candidate: JsonValue; result: z.ZodSafeParseResult<unknown> };

function parseJson(text: string): { ok: true; value: JsonValue } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function check(spec: OutputSpec, candidate: JsonValue): Parsed {
  return { candidate, result: spec.schema.safeParse(candidate, { reportInput: true }) };
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_ISSUE_INPUT_CHARS
    ? `${text.slice(0, MAX_ISSUE_INPUT_CHARS)}… (${text.length} chars)`
    : text;
}

function issueLine(issue: z.core.$ZodIssue): string {
  const path = issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
  const got = 'input' in issue && issue.input !== undefined ? `; got ${preview(issue.input)}` : '';
  return `- at ${path}: ${issue.message}${got}`;
}

function cap(text: string): string {
  return text.length > MAX_ANSWER_NOTE_CHARS ? `${text.slice(0, MAX_ANSWER_NOTE_CHARS)}…` : text;
}

function refusal(
  issues: readonly z.core.$ZodIssue[],
  notJson: string | null,
): { note: string; mismatch: string } {
  const lines = issues.slice(0, MAX_ANSWER_ISSUES).map(issueLine);
  if (issues.length > MAX_ANSWER_ISSUES) {
    lines.push(`- … and ${issues.length - MAX_ANSWER_ISSUES} more`);
  }
  const why =
    notJson === null
      ? 'it does not match the required answer format'
      : `it is not valid JSON (${notJson}), and as text it does not match the required answer format`;
  const body = lines.join('\n');
  return {
    note: `${cap(`Your final answer was not accepted: ${why}.\n${body}`)}\nFix the value and answer again with FINAL_VAR(name) or FINAL(json).`,
    mismatch: cap(
      notJson === null
        ? `does not match the output schema:\n${body}`
        : `is not valid JSON (${notJson}), and as text does not match the output schema:\n${body}`,
    ),
  };
}

/**
 * Checks a final answer against the run's output schema. A value read from a variable that is
 * not a string is checked as it is. Text is read as JSON first (so `FINAL({"a": 1})` and
 * `FINAL(42)` give an object and a number) and then as the plain string (so a string schema
 * takes `FINAL(Paris)`); the first that matches wins. The accepted value's JSON text is what
 * events and trajectories record.
 */
export function checkAnswer(
  { text, value }: { text: string; value?: JsonValue | undefined },
  spec: OutputSpec,
): AnswerCheck {
  const attempts: Parsed[] = [];
  let notJson: string | null = null;
  if (value !== undefined && typeof value !== 'string') {
    attempts.push(check(spec, value));
  } else {
    const raw = value ?? text;
    const json = parseJson(raw.trim());
    if (json.ok) attempts.push(check(spec, json.value));
    else notJson = json.reason;
    if (!json.ok || json.value !== raw) attempts.push(check(spec, raw));
  }
  for (const { candidate, result } of attempts) {
    if (result.success) return { ok: true, value: result.data, json: JSON.stringify(candidate) };
  }
  // The JSON reading explains more than the plain-text one, when the text was JSON.
  const first = attempts[0]?.result;
  const issues = first === undefined || first.success ? [] : first.error.issues;
  return { ok: false, ...refusal(issues, notJson) };
}
