import { replLanguageSchema } from '@rlm/protocol';
import { z } from 'zod';
import { PROMPT_MODES, promptModeSchema } from '../system/prompt-mode.js';

/** The front-matter a driver file starts with, between `---` lines. */
export const driverFrontMatterSchema = z
  .object({
    /** Kebab-case name, unique among loaded drivers. */
    name: z
      .string()
      .regex(
        /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
        'expected a kebab-case name such as verify-before-final',
      ),
    /** One line saying what the driver changes. */
    description: z.string().trim().min(1, 'expected a non-empty description'),
    /** Modes the driver applies to; in any other mode it is left out. @default both modes */
    modes: z
      .array(promptModeSchema)
      .min(1)
      .default([...PROMPT_MODES]),
    /** Modes the driver must never be used in; selecting it there is an error. @default [] */
    conflicts: z.array(promptModeSchema).default([]),
    /** Glob over the root model id (`*` any run of characters, `?` one character). */
    model: z.string().trim().min(1).optional(),
    /**
     * REPL languages the driver is written for (`javascript`, `python`); with another language it
     * is left out. @default every language
     */
    repls: z.array(replLanguageSchema).min(1).optional(),
  })
  .strict()
  .refine((front) => !front.conflicts.some((mode) => front.modes.includes(mode)), {
    message: 'a mode cannot be both in modes and in conflicts',
    path: ['conflicts'],
  });

/** A parsed driver: front-matter plus the markdown body appended to the root prompt. */
export const driverSchema = z.object({
  name: z.string().min(1),
  description: z.string().min(1),
  modes: z.array(promptModeSchema).min(1),
  conflicts: z.array(promptModeSchema),
  model: z.string().min(1).optional(),
  /** REPL languages it applies to; every language when absent. */
  repls: z.array(replLanguageSchema).min(1).optional(),
  /** Markdown text appended to the prompt, trimmed. */
  body: z.string().trim().min(1, 'expected a non-empty body'),
  /** Where it came from: a file path or `builtin:<name>`. */
  source: z.string().min(1),
});

/** A prompt driver: a markdown instruction block that adjusts how the root RLM behaves. */
export type Driver = z.infer<typeof driverSchema>;
