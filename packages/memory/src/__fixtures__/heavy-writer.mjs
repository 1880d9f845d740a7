// Child process for the durability tests. It uses the BUILT package (dist), as a real consumer
// would, writes as fast as it can, and prints one JSON line per write only after the write's
// promise resolved, i.e. after it was reported as written. Usage:
//   node heavy-writer.mjs <db path> <max writes (0 = until killed)>
import { createStore } from '@rlm/memory';

const [path, maxArgument] = process.argv.slice(2);
const maxWrites = Number(maxArgument);
const acceptAll = () => ({ ok: true });
const store = await createStore({
  kind: 'sqlite',
  path,
  // Large limits so that no acknowledged write is evicted by design during the run.
  limits: { scratchpadEntries: 1_000_000, senders: 1_000_000, exchangesPerSender: 1_000_000 },
  promptLayers: { seeds: { 6: 'a', 7: 'b', 8: 'c', 9: 'd' }, validate: acceptAll },
});
if ((await store.runs.getRun('writer')) === undefined) await store.runs.createRun({ id: 'writer' });

function ack(record) {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

async function write(index) {
  const seq = await store.runs.appendEvent('writer', {
    v: 1,
    type: 'iteration-start',
    runId: 'writer',
    parentRunId: null,
    rootRunId: 'writer',
    depth: 0,
    at: Date.now(),
    iteration: index,
  });
  ack({ kind: 'event', seq });
  if (index % 2 === 0) {
    await store.scratchpad.set(`key-${index}`, { type: 'test', summary: `write ${index}`, raw: { index } });
    ack({ kind: 'scratchpad', key: `key-${index}` });
  } else {
    const sender = `sender-${index % 50}`;
    await store.conversations.append(sender, {
      messageId: `m-${index}`,
      senderBody: 'x'.repeat(600),
      agentReply: 'ok',
      turnId: `t-${index}`,
    });
    ack({ kind: 'exchange', sender, messageId: `m-${index}` });
  }
}

// Writes go out in concurrent batches, as a server handling several requests would issue them.
const BATCH = 8;
for (let index = 0; maxWrites === 0 || index < maxWrites; index += BATCH) {
  const size = maxWrites === 0 ? BATCH : Math.min(BATCH, maxWrites - index);
  await Promise.all(Array.from({ length: size }, (_, offset) => write(index + offset)));
}
await store.close();
