import { parseSchema, replLanguageSchema } from '@rlm/protocol';
import { z } from 'zod';
import { driverSchema } from '../drivers/driver.js';
import { modelSpecSchema } from './model-spec.js';
import { promptModeSchema } from './prompt-mode.js';
import { toolSpecSchema } from './tool-spec.js';

/** The options of `buildSystemPrompt`, validated at the boundary. */
export const systemPromptOptionsSchema = z.object({
  /** 0 for the root; each child is one deeper. */
  depth: z.number().int().min(0),
  /** The depth at which RLMs stop having a REPL and answer in one shot (`depth >= maxDepth`). */
  maxDepth: z.number().int().min(0),
  /** The root's approach; children are always solvers. @default 'solver' */
  mode: promptModeSchema.default('solver'),
  /** Iterations each child gets, stated in the delegation section when known. */
  childBudget: z.number().int().positive().optional(),
  /** User host tools to list. @default [] */
  tools: z.array(toolSpecSchema).default([]),
  /** Models the RLM may pick; a table appears when there are two or more. @default [] */
  models: z.array(modelSpecSchema).default([]),
  /** Built-in driver names or parsed drivers; applied at the root only. @default [] */
  drivers: z.array(z.union([z.string().min(1), driverSchema])).default([]),
  /**
   * Document the host context helpers (`grep`, `find_all`, `count`, `lines`, `chunk`); false for a
   * sandbox created without them, so the prompt never names a function that does not exist.
   * @default true
   */
  contextHelpers: z.boolean().default(true),
  /** Document the background-task verbs (coordinator dispatch). @default false */
  dispatcher: z.boolean().default(false),
  /** A caller's instructions for a child: the prompt becomes a specialist prompt. */
  systemPrompt: z.string().trim().min(1).optional(),
  /**
   * The JSON Schema the root's final answer must match (a typed answer): described in an
   * `Answer format` section. Ignored below the root (children answer their caller in text).
   */
  output: z.record(z.string(), z.unknown()).optional(),
  /**
   * The language the RLM's REPL runs: `javascript` (`@rlm/sandbox`) or `python`
   * (`@rlm/sandbox-python`). Every section describing code (the environment, tools, models,
   * delegation, background tasks) is written for it; drivers limited to other languages are left out.
   * @default 'javascript'
   */
  repl: replLanguageSchema.default('javascript'),
  /** The model this prompt is for, matched against drivers' `model` globs. */
  model: z.string().min(1).optional(),
});

/** Options of `buildSystemPrompt` as callers write them (defaults optional). */
export type SystemPromptOptions = z.input<typeof systemPromptOptionsSchema>;

/** Options of `buildSystemPrompt` after validation, with defaults filled in. */
export type ResolvedSystemPromptOptions = z.output<typeof systemPromptOptionsSchema>;

/**
 * Validates options and fills defaults.
 *
 * @throws RlmError `config.invalid` naming each bad field
 */
export function parseSystemPromptOptions(
  options: SystemPromptOptions,
): ResolvedSystemPromptOptions {
  return parseSchema(systemPromptOptionsSchema, options, {
    what: 'system prompt options',
    code: 'config.invalid',
  });
}

/** True when an RLM at `depth` can start child RLMs that have a REPL of their own. */
export function canDelegate(depth: number, maxDepth: number): boolean {
  return depth < maxDepth - 1;
}
