import { z } from 'zod';

/** The languages an RLM's REPL can run: JavaScript (QuickJS, the default) or Python (Pyodide). */
export const REPL_LANGUAGES = ['javascript', 'python'] as const;

/** The REPL language of a run; recorded in trajectories so replay and resume use the same one. */
export const replLanguageSchema = z.enum(REPL_LANGUAGES);

/** `'javascript'` or `'python'`. */
export type ReplLanguage = z.infer<typeof replLanguageSchema>;

/** The language when none is given (and of every trajectory written before languages were recorded). */
export const DEFAULT_REPL_LANGUAGE: ReplLanguage = 'javascript';
