import { describeIssues, RlmError } from '@rlm/protocol';
import { parse as parseYaml } from 'yaml';
import type { ParseResult } from '../validation-result.js';
import { type Driver, driverFrontMatterSchema } from './driver.js';

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

function invalid(source: string, issues: string[]): RlmError<'prompts.driver_invalid'> {
  return new RlmError({
    code: 'prompts.driver_invalid',
    message: `Invalid driver ${source}:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`,
    details: { source, issues },
  });
}

function readYaml(yamlText: string): { ok: true; value: unknown } | { ok: false; issue: string } {
  try {
    return { ok: true, value: parseYaml(yamlText) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, issue: `front-matter is not valid YAML: ${reason}` };
  }
}

/**
 * Parses a driver file without throwing: `---` front-matter (`name`, `description`, `modes`,
 * `conflicts`, optional `model` glob and `repls`), then a non-empty markdown body.
 *
 * @example
 * const result = safeParseDriver(text, 'drivers/terse.md');
 * if (!result.ok) console.error(result.error.details.issues);
 */
export function safeParseDriver(
  text: string,
  source: string,
): ParseResult<Driver, 'prompts.driver_invalid'> {
  const match = FRONT_MATTER.exec(text);
  if (match === null) {
    return {
      ok: false,
      error: invalid(source, [
        '(root): expected front-matter between two "---" lines at the start of the file',
      ]),
    };
  }
  const yaml = readYaml(match[1] ?? '');
  if (!yaml.ok) return { ok: false, error: invalid(source, [yaml.issue]) };
  const front = driverFrontMatterSchema.safeParse(yaml.value ?? {});
  const body = (match[2] ?? '').trim();
  const issues = front.success ? [] : describeIssues(front.error);
  if (body.length === 0) issues.push('body: expected markdown text after the front-matter');
  if (!front.success || issues.length > 0) return { ok: false, error: invalid(source, issues) };
  const { name, description, modes, conflicts, model, repls } = front.data;
  const driver: Driver = { name, description, modes, conflicts, body, source };
  if (model !== undefined) driver.model = model;
  if (repls !== undefined) driver.repls = repls;
  return { ok: true, value: driver };
}

/**
 * Parses a driver file (see {@link safeParseDriver}).
 *
 * @throws RlmError `prompts.driver_invalid` naming each bad field
 * @example
 * const driver = parseDriver('---\nname: terse\ndescription: Short answers\n---\nAnswer tersely.', 'terse.md');
 */
export function parseDriver(text: string, source: string): Driver {
  const result = safeParseDriver(text, source);
  if (!result.ok) throw result.error;
  return result.value;
}
