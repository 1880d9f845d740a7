import { REPL_LANGUAGES, replLanguageSchema } from '@rlm/protocol';
import type { ConfigKeyInfo } from './config-keys.js';

/**
 * The `repl` configuration key, kept in its own module: its flag (`--repl`), environment variable
 * (`RLM_REPL`), schema and default, which `CONFIG_KEYS` and the config schema take in.
 */
export const REPL_KEY = {
  repl: {
    env: 'RLM_REPL',
    flag: '--repl',
    kind: 'string',
    description:
      'the language the model writes: javascript (default) or python (needs @rlm/sandbox-python)',
    values: REPL_LANGUAGES,
  },
} as const satisfies Record<'repl', ConfigKeyInfo>;

/** The `repl` field of the CLI config schema. */
export const replConfigShape = { repl: replLanguageSchema };

/** The default of `repl`. */
export const DEFAULT_REPL_CONFIG = { repl: 'javascript' } as const;
