import { buildExecutorSections } from '@rlm/prompts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from './__fixtures__/open-test-store.js';
import { conversationItems, memorySections } from './to-context-items.js';

describe('memorySections and conversationItems', () => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore('memory');
  });
  afterEach(() => test.cleanup());

  it('groups retrieved items by kind in rank order with provenance as source', async () => {
    const fact = await test.store.workingMemory.add({
      kind: 'fact',
      content: 'Invoices are due in 30 days',
      source: 'doc:terms',
    });
    await test.store.workingMemory.add({
      kind: 'episode',
      content: 'Sent invoice 7 to Bob',
      source: 'run:r9',
    });
    await test.store.workingMemory.add({
      kind: 'observation',
      content: 'Queue is empty',
      source: 'tool:queue',
    });
    const sections = memorySections(
      await test.store.workingMemory.retrieve({ query: 'invoice', budgetChars: 500 }),
    );
    expect(sections.semantic).toEqual([
      {
        text: 'Invoices are due in 30 days',
        source: `working-memory/fact#${fact.id} from doc:terms`,
      },
    ]);
    expect(sections.episodic.map((item) => item.text)).toEqual(['Sent invoice 7 to Bob']);
    expect(sections.observations.map((item) => item.text)).toEqual(['Queue is empty']);
  });

  it('feeds buildExecutorSections so every memory line names its source', async () => {
    await test.store.workingMemory.add({
      kind: 'fact',
      content: 'Bob prefers email',
      source: 'sender:bob',
    });
    await test.store.conversations.append('bob', {
      messageId: 'm1',
      senderBody: 'Any news?',
      agentReply: 'Soon.',
      turnId: 't1',
    });
    const { text } = buildExecutorSections({
      role: 'assistant',
      task: 'reply to bob',
      conversation: conversationItems('bob', await test.store.conversations.recent('bob', 5)),
      ...memorySections(
        await test.store.workingMemory.retrieve({ query: 'bob email', budgetChars: 500 }),
      ),
    });
    expect(text).toMatch(/\[source: working-memory\/fact#\d+ from sender:bob\] Bob prefers email/);
    expect(text).toContain('[source: conversation/bob#m1]');
  });
});
