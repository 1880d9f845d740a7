import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WRITER = fileURLToPath(new URL('./heavy-writer.mjs', import.meta.url));

export type Ack =
  | { kind: 'event'; seq: number }
  | { kind: 'scratchpad'; key: string }
  | { kind: 'exchange'; sender: string; messageId: string };

export interface Writer {
  child: ChildProcess;
  /** Every acknowledged write so far (complete lines only). */
  acks: Ack[];
  /** Resolves once at least `count` writes were acknowledged. */
  waitForAcks(count: number): Promise<void>;
  /** Resolves with the exit code, or the signal name when killed. */
  exited: Promise<number | string>;
}

/** Starts the heavy writer on `path` (`maxWrites` 0: until killed). */
export function spawnWriter(path: string, maxWrites: number): Writer {
  const child = spawn(process.execPath, [WRITER, path, String(maxWrites)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: Ack[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let buffered = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    // The last piece has no newline yet: a line cut by a kill is never counted as an ack.
    buffered = lines.pop() ?? '';
    for (const line of lines) acks.push(JSON.parse(line) as Ack);
    for (const waiter of waiters.filter((entry) => acks.length >= entry.count)) waiter.resolve();
  });
  const exited = new Promise<number | string>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== null && code !== 0) reject(new Error(`writer exited with ${code}: ${stderr}`));
      else resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    child,
    acks,
    exited,
    waitForAcks(count) {
      if (acks.length >= count) return Promise.resolve();
      return Promise.race([
        new Promise<void>((resolve) => waiters.push({ count, resolve })),
        exited.then(() => {
          throw new Error(`writer exited after ${acks.length} of ${count} acks: ${stderr}`);
        }),
      ]);
    },
  };
}
