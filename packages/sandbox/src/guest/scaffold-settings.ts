import { record } from './primordials.js';

/** What the host passes the prelude (as JSON) when it installs the scaffold. */
export interface ScaffoldConfig {
  /** Scaffold names restored after every block (from `RESERVED_NAMES`). */
  reserved: string[];
  /** Host functions: reserved, restored after every block. */
  functions: string[];
  /** Context helpers: host functions under ordinary, rebindable names. */
  helpers: string[];
  /** Exposed (deeply frozen) as `__rlm`. */
  meta: Record<string, unknown>;
  maxOutputChars: number;
  maxAnswerChars: number;
  maxHostCallChars: number;
  maxErrorNameChars: number;
  /** Strings at least this long have some methods done by the host (see native-strings.ts). */
  nativeStringMinChars: number;
}

/** The caps the scaffold enforces, set once by `installScaffold`. */
export interface ScaffoldLimits {
  /** Characters kept per output stream per block; also the cap on an error's message and stack. */
  maxOutputChars: number;
  /** Most characters a final answer may have. */
  maxAnswerChars: number;
  /** Most characters of JSON one host call's arguments may take. */
  maxHostCallChars: number;
  /** Most characters of an error's name that leave the sandbox. */
  maxErrorNameChars: number;
}

export const limits = record<ScaffoldLimits>();

/** Stores the caps from the configuration. */
export function configureLimits(config: ScaffoldConfig): void {
  limits.maxOutputChars = config.maxOutputChars;
  limits.maxAnswerChars = config.maxAnswerChars;
  limits.maxHostCallChars = config.maxHostCallChars;
  limits.maxErrorNameChars = config.maxErrorNameChars;
}

/** A text cut to a cap: what is kept and how many characters were left out. */
export interface CutText {
  text: string;
  dropped: number;
}
