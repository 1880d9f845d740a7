// Host tools for `rlm run --tool examples/checksum-tools.mjs`. Each tool is an async function the
// model's REPL code can call by name; it runs in Node (outside the sandbox), so it may use any
// module. Arguments and results cross the boundary as JSON.
import { createHash } from 'node:crypto';

export const tools = {
  sha256: {
    description: 'await sha256(text) → the hex SHA-256 digest of a string (UTF-8).',
    async call([text]) {
      if (typeof text !== 'string') throw new TypeError('sha256(text): text must be a string');
      return createHash('sha256').update(text, 'utf8').digest('hex');
    },
  },
  now: {
    description: 'await now() → the current time as an ISO 8601 string (UTC).',
    async call() {
      return new Date().toISOString();
    },
  },
};
