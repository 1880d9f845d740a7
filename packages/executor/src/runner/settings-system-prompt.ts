import type { SystemPromptOptions } from '@rlm/prompts';
import {
  type LanguageModel,
  parseSchema,
  RlmError,
  type RunSettingsInput,
  runSettingsSchema,
} from '@rlm/protocol';
import { parseRLMConfig, type RLMConfig } from '../config/rlm-config.js';
import {
  childPromptOptions,
  childSystemPrompt,
  rootPromptOptions,
  rootSystemPrompt,
} from '../loop/system-prompts.js';
import { outputFromJsonSchema, outputSpec } from '../output/output-spec.js';
import { runnerRlmConfig } from './runner-rlm-config.js';
import type { RunInput } from './runner-types.js';

/** What a run has besides its settings that shows in its prompt. */
export interface SettingsPromptInput {
  /** The invocation the prompt is for: 0 (the root, the default) or a child's depth. */
  depth?: number;
  /** Drivers the door read (files, parsed), after the settings' built-in names. */
  drivers?: RunInput['drivers'];
  /** Host tools by name, as the prompt lists them. */
  tools?: Readonly<Record<string, { description: string; signature?: string | undefined }>>;
  /** Text a door puts before the root's prompt. */
  systemPromptPrefix?: string;
}

/** The prompt and the options it was built from (for a section/size report). */
export interface SettingsPrompt {
  text: string;
  options: SystemPromptOptions;
}

/**
 * The system prompt a run with these settings sends, byte for byte: built from the same
 * executor configuration `createRunner` runs with (mode and dispatcher section, child iteration
 * budget, models, drivers, REPL language, tools, typed answer). Needs no credentials.
 *
 * @throws RlmError `config.invalid` for bad settings or a depth beyond the run's
 * @example
 * const { text } = settingsSystemPrompt({ model: 'anthropic/claude-sonnet-4-5', mode: 'coordinator' });
 */
export function settingsSystemPrompt(
  input: RunSettingsInput,
  { depth = 0, drivers, tools = {}, systemPromptPrefix }: SettingsPromptInput = {},
): SettingsPrompt {
  const settings = parseSchema(runSettingsSchema, input, {
    what: 'run settings',
    code: 'config.invalid',
  });
  const taskId = settings.dispatch?.model;
  const config = parseRLMConfig(
    runnerRlmConfig(settings, {
      models: {
        model: idOnly(settings.model),
        subModel: settings.subModel === undefined ? undefined : idOnly(settings.subModel),
        ...(taskId === undefined ? {} : { taskModel: idOnly(taskId) }),
      },
      tools: Object.fromEntries(
        Object.entries(tools).map(
          ([name, tool]): [string, NonNullable<RLMConfig['tools']>[string]] => [
            name,
            { ...tool, call: async () => null },
          ],
        ),
      ),
      input: {
        ...(drivers === undefined ? {} : { drivers }),
        ...(systemPromptPrefix === undefined ? {} : { systemPromptPrefix }),
      },
      costCapped: undefined,
      runner: {},
    } satisfies Parameters<typeof runnerRlmConfig>[1]),
  );
  if (!Number.isInteger(depth) || depth < 0 || depth >= config.maxDepth) {
    throw new RlmError({
      code: 'config.invalid',
      message: `Invalid prompt depth ${depth}: a run with maxDepth ${config.maxDepth} has invocations at depth 0 to ${config.maxDepth - 1}.`,
      details: { source: 'depth', issues: [`depth: expected 0 to ${config.maxDepth - 1}`] },
    });
  }
  if (depth > 0) {
    const child = { depth, repl: settings.repl };
    return { text: childSystemPrompt(config, child), options: childPromptOptions(config, child) };
  }
  const output =
    settings.outputSchema === undefined
      ? undefined
      : // As a run's answer schema is: converted, then described again.
        outputSpec(outputFromJsonSchema(settings.outputSchema, { source: 'outputSchema' }));
  return {
    text: rootSystemPrompt(config, { output }),
    options: rootPromptOptions(config, { output }),
  };
}

/** A model known by its id only: building a prompt never calls it. */
function idOnly(id: string): LanguageModel {
  return {
    id,
    complete: () =>
      Promise.reject(
        new RlmError({
          code: 'config.invalid',
          message: `${id} is a placeholder for building a prompt and answers nothing`,
          details: { source: 'settingsSystemPrompt', issues: [] },
        }),
      ),
  };
}
