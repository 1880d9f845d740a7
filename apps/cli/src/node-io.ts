import envPaths from 'env-paths';
import type { CliIo } from './cli-io.js';

/** The real world for `runCli`: process streams, env, cwd, signals and the platform's config/data dirs. */
export function createNodeIo(): CliIo {
  const paths = envPaths('rlm', { suffix: '' });
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdio: { input: process.stdin, output: process.stdout },
    readStdin,
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    paths: { config: paths.config, data: paths.data },
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => {
        process.off('SIGINT', handler);
      };
    },
    exitNow(code) {
      process.exit(code);
    },
    now: () => Date.now(),
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
