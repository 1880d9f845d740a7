// A walk through one scripted RLM conversation using only @rlm/protocol: no model, no sandbox.
// The model replies are fixed strings and the block result is written by hand, standing in for
// what @rlm/executor and @rlm/sandbox produce in a real run. Run it with `pnpm --filter @rlm/protocol run demo`
// after building the package (the root `npm start` does both).
import {
  buildMetadataMessage,
  buildUserPrompt,
  findCodeBlocks,
  findFinalAnswer,
  formatIteration,
  queryMetadata,
} from '@rlm/protocol';

function show(title, body) {
  const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  const indented = text.replace(/^/gm, '    ');
  process.stdout.write(
    `\n── ${title} ${'─'.repeat(Math.max(0, 60 - title.length))}\n${indented}\n`,
  );
}

const context = [
  'Ticket 101: login fails on Safari.',
  'Ticket 102: invoice PDF has the wrong date.',
  'Ticket 103: login fails after password reset.',
];
const query = 'How many tickets are about login?';

// 1. Before the first turn the model learns what its context is, not what it says.
const metadata = queryMetadata(context);
show('queryMetadata(context)', metadata);
show('first user message: buildMetadataMessage', buildMetadataMessage(metadata));
show('turn 0 prompt: buildUserPrompt', buildUserPrompt({ rootPrompt: query, iteration: 0 }));

// 2. Turn 0: the model explores with code. Blocks come back dedented; there is no answer yet.
const turn0 = [
  'Let me count the tickets that mention login.',
  '```repl',
  '  const hits = context.filter((line) => line.includes("login"));',
  '  print(hits.length);',
  '  const answer = hits.length + " tickets (101, 103)";',
  '```',
].join('\n');
show('model response, turn 0', turn0);
const blocks = findCodeBlocks(turn0);
show(`findCodeBlocks(response): ${blocks.length} block`, blocks.join('\n\n'));
show('findFinalAnswer(response)', String(await findFinalAnswer(turn0)));

// 3. What the sandbox reported for that block (hand-written here), formatted for the next turn.
const result = {
  stdout: '2\n',
  stderr: '',
  locals: { hits: 'array', answer: 'string' },
  executionTime: 3,
  llmCalls: [],
  finalAnswer: null,
  error: null,
};
const messages = formatIteration({
  response: turn0,
  codeBlocks: [{ code: blocks[0], result }],
});
for (const message of messages) {
  show(`formatIteration(turn 0) adds the ${message.role} message`, message.content);
}
show('turn 1 prompt: buildUserPrompt', buildUserPrompt({ rootPrompt: query, iteration: 1 }));

// 4. Turn 1: the model names a REPL variable as its answer; the loop reads it from the sandbox.
const turn1 = 'Two tickets match.\nFINAL_VAR(answer)';
const variables = new Map([['answer', '2 tickets (101, 103)']]);
show('model response, turn 1', turn1);
show(
  'findFinalAnswer(response, resolveVariable)',
  await findFinalAnswer(turn1, async (name) => variables.get(name)),
);
