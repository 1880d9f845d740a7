import type { Readable, Writable } from 'node:stream';

/** A stream the CLI writes to; `isTTY`, `columns` and `rows` decide how progress is drawn. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  rows?: number;
}

/** Where `rlm` keeps its files, from the platform conventions (XDG on Linux). */
export interface CliPaths {
  /** Holds the user-level `rlm.config.json` / `rlm.config.toml`. */
  config: string;
  /** Holds trajectories by default (`<data>/trajectories`). */
  data: string;
}

/**
 * Everything the CLI touches in the outside world. `bin.ts` builds it from `process`;
 * tests and embedders pass their own, so `runCli` never reads globals.
 */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /**
   * The process's standard input and output as streams, for `rlm mcp`, which speaks the
   * protocol over them; absent when embedded (that command then refuses to start).
   */
  stdio?: { input: Readable; output: Writable };
  /** Reads all of standard input (for `--context -`). */
  readStdin(): Promise<string>;
  /** Standard input is a terminal: `--context -` then waits for typing, so say so first. */
  stdinIsTTY?: boolean;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  paths: CliPaths;
  /** Calls `handler` on each Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  /** Ends the process at once (the second Ctrl-C). */
  exitNow(code: number): never;
  /** Epoch milliseconds (injectable for tests). */
  now(): number;
}
