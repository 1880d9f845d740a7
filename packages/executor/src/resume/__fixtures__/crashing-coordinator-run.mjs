// A coordinator run that is SIGKILLed by its parent test: turn 0 delegates two background tasks
// and reads their results (checkpointed to the SQLite file given as argv[2]), then turn 1 waits
// on the model until the process is killed.
import { createStore } from '@rlm/memory';
import { scriptedModel } from '@rlm/testkit';
import { createRLM } from '../../../dist/index.js';

const [path, runId] = process.argv.slice(2);
const store = await createStore({ kind: 'sqlite', path });
const turnOf = (request) => request.messages.filter((message) => message.role === 'assistant').length;
const model = scriptedModel(async (request) => {
  if (request.system?.includes('## Background tasks') !== true) {
    return '```repl\nFINAL(context.toUpperCase())\n```';
  }
  if (turnOf(request) === 0) {
    return [
      '```repl',
      "const ids = delegate_batch([{ task: 'task one', context: 'one' }, { task: 'task two', context: 'two' }])",
      "const early = (await await_results(ids)).results.map((r) => r.summary).join('+')",
      '```',
    ].join('\n');
  }
  // A timer keeps the process waiting to be killed, and ends it should the parent never do so.
  setTimeout(() => process.exit(3), 10 * 60_000);
  process.stdout.write('WAITING\n');
  return new Promise(() => undefined);
});
const rlm = createRLM({
  model,
  maxDepth: 2,
  promptMode: 'coordinator',
  runStore: store.runs,
  generateId: () => runId,
  isolation: 'inline',
});
await rlm.completion('the context', { query: 'join them' });
