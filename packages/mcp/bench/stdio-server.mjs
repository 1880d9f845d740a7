// The MCP server the benchmark talks to over stdio, as `rlm mcp` runs it (worker sandboxes).
import { rlmQueryRunner, serveStdio } from '../dist/index.js';
import { benchModel } from './bench-model.mjs';

await serveStdio({ runQuery: rlmQueryRunner({ model: benchModel(), firstTurnGuard: false }) });
