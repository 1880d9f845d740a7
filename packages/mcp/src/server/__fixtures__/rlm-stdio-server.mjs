// `serveStdio` as `rlm mcp` runs it: a real child process on its own stdin and stdout, from the
// built package (tests run after the build).
import { serveStdio } from '../../../dist/index.js';

const rlm = await serveStdio({ cwd: null, repl: { isolation: 'worker' } });
await rlm.closed;
