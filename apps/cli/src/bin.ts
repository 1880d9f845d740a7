#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createExecutorEngine } from './engine/executor-engine.js';
import { createNodeIo } from './node-io.js';
import { runCli } from './run-cli.js';

// The only place with side effects: read the real process, run, set the exit code.
// A closed pipe (`rlm trace x | head`) is the reader saying it has seen enough, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};
process.exitCode = await runCli(process.argv.slice(2), createNodeIo(), {
  engine: createExecutorEngine(),
  version,
});
