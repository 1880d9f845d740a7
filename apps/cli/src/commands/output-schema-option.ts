import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { OutputSchema } from '@rlm/executor';
import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';

/** `--output-schema FILE`: the answer must be JSON matching this JSON Schema. */
export function addOutputSchemaOption(command: Command): Command {
  return command.option(
    '--output-schema <file>',
    'a JSON Schema file: the answer must be JSON that matches it (printed as JSON)',
  );
}

/**
 * The `--output-schema` file as a validator, read and checked before anything runs.
 * @throws RlmError `config.invalid` naming the file, for an unreadable, non-JSON or unsupported schema
 */
export async function readOutputSchemaOption(
  options: Record<string, unknown>,
  { cwd }: { cwd: string },
): Promise<OutputSchema | undefined> {
  const file = options['outputSchema'];
  if (typeof file !== 'string') return undefined;
  const source = `--output-schema ${file}`;
  const invalid = (issue: string, cause?: unknown) =>
    new RlmError({
      code: 'config.invalid',
      message: `Invalid ${source}: ${issue}`,
      details: { source, issues: [issue] },
      cause,
    });
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw invalid(
      `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      error,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(`the file is not JSON (${(error as Error).message})`, error);
  }
  const { outputFromJsonSchema } = await import('@rlm/executor');
  return outputFromJsonSchema(json, { source });
}
