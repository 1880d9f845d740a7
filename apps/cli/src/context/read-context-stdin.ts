import type { CliIo } from '../cli-io.js';

/**
 * Reads standard input for `--context -`. At a terminal nothing arrives until the user types, so
 * a line on stderr says what is being read and how to end it, rather than a silent wait.
 */
export function readContextStdin(io: CliIo): Promise<string> {
  if (io.stdinIsTTY === true) {
    io.stderr.write(
      'rlm: reading the context from standard input; type or paste it, then press Ctrl-D on an empty line to end it (Ctrl-C cancels).\n',
    );
  }
  return io.readStdin();
}
