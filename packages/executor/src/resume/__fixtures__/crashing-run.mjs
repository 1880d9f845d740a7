// A run that is SIGKILLed by its parent test: two turns complete (and are checkpointed to the
// SQLite file given as argv[2], the trajectory to the directory argv[4]), then the third waits on the model until the process is killed.
import { createStore } from '@rlm/memory';
import { scriptedModel } from '@rlm/testkit';
import { createRLM } from '../../../dist/index.js';

const [path, runId, trajectoryDir] = process.argv.slice(2);
const store = await createStore({ kind: 'sqlite', path });
const turnOf = (request) => request.messages.filter((message) => message.role === 'assistant').length;
const model = scriptedModel(async (request) => {
  switch (turnOf(request)) {
    case 0:
      return '```repl\nconst a = await llm_query("first")\n```';
    case 1:
      return '```repl\nconst b = a + "+" + (await llm_query("second"))\n```';
    default:
      // A pending promise alone does not keep Node alive: with nothing else to wait on it exits
      // with code 13 (unsettled top-level await), racing the parent's SIGKILL. A timer keeps the
      // process waiting to be killed, and ends it should the parent never do so.
      setTimeout(() => process.exit(3), 10 * 60_000);
      process.stdout.write('WAITING\n');
      return new Promise(() => undefined);
  }
});
const subModel = scriptedModel((request) => request.messages.at(-1).content.toUpperCase(), {
  id: 'scripted/sub',
});
const rlm = createRLM({
  model,
  subModel,
  runStore: store.runs,
  generateId: () => runId,
  isolation: 'inline',
  trajectory: { dir: trajectoryDir },
});
await rlm.completion('the context', { query: 'join them' });
