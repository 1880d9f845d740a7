// The MCP server the benchmark talks to over stdio, as `rlm mcp` runs it (worker sandboxes):
// every `rlm_query` goes through the executor's runner, with the zero-latency bench model.
import { createRunner } from '@rlm/executor';
import { rlmQueryRunner, serveStdio } from '../dist/index.js';
import { benchModel } from './bench-model.mjs';

const model = benchModel();
await serveStdio({
  runQuery: rlmQueryRunner({
    runner: createRunner({ resolveModel: () => model }),
    settings: { model: model.id },
  }),
});
