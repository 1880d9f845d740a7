import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, openTestStore, type TestStore } from './__fixtures__/open-test-store.js';
import {
  DEFAULT_MAX_EXCHANGE_CHARS,
  DEFAULT_MAX_EXCHANGES_PER_SENDER,
  DEFAULT_MAX_SENDERS,
  type ExchangeInput,
} from './conversation-store.js';

function exchange(index: number, overrides: Partial<ExchangeInput> = {}): ExchangeInput {
  return {
    messageId: `m${index}`,
    senderBody: `body ${index}`,
    agentReply: `reply ${index}`,
    turnId: `t${index}`,
    ...overrides,
  };
}

/** True when the string holds no unpaired surrogate (what String#isWellFormed checks on ES2024). */
function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

describe.each(BACKENDS)('ConversationStore (%s)', (backend) => {
  let test: TestStore;
  beforeEach(async () => {
    test = await openTestStore(backend);
  });
  afterEach(() => test.cleanup());

  it('appends and returns exchanges oldest first, stamping at from the clock', async () => {
    const first = await test.store.conversations.append('alice', exchange(1));
    test.clock.advance(10);
    await test.store.conversations.append('alice', exchange(2, { at: 5 }));
    expect(first).toEqual({ ...exchange(1), at: 1_000_000 });
    const stored = await test.store.conversations.get('alice');
    expect(stored.map((entry) => [entry.messageId, entry.at])).toEqual([
      ['m1', 1_000_000],
      ['m2', 5],
    ]);
  });

  it('normalises sender ids: trimmed, 0x addresses lowercased, other ids case-kept', async () => {
    await test.store.conversations.append('  0xAbCDef12 ', exchange(1));
    await test.store.conversations.append('0xabcdef12', exchange(2));
    await test.store.conversations.append('Alice', exchange(3));
    expect(await test.store.conversations.get('0XABCDEF12')).toHaveLength(2);
    expect(await test.store.conversations.get('alice')).toHaveLength(0);
    const senders = await test.store.conversations.listSenders();
    expect(senders.map((sender) => sender.senderId).sort()).toEqual(['0xabcdef12', 'Alice']);
  });

  it('keeps a body of exactly 500 chars whole and cuts 501 to 500', async () => {
    expect(DEFAULT_MAX_EXCHANGE_CHARS).toBe(500);
    const exact = 'a'.repeat(500);
    const over = `${'b'.repeat(500)}c`;
    const stored = await test.store.conversations.append(
      's',
      exchange(1, { senderBody: exact, agentReply: over }),
    );
    expect(stored.senderBody).toBe(exact);
    expect(stored.agentReply).toBe('b'.repeat(500));
    const [read] = await test.store.conversations.get('s');
    expect(read?.senderBody).toHaveLength(500);
    expect(read?.agentReply).toHaveLength(500);
  });

  it('never splits a surrogate pair when truncating', async () => {
    const body = `${'a'.repeat(499)}😀tail`;
    await test.store.conversations.append('s', exchange(1, { senderBody: body }));
    const [read] = await test.store.conversations.get('s');
    expect(read?.senderBody).toBe('a'.repeat(499));
    expect(isWellFormed(read?.senderBody ?? '')).toBe(true);
  });

  it('keeps 20 exchanges per sender and drops the oldest on the 21st', async () => {
    expect(DEFAULT_MAX_EXCHANGES_PER_SENDER).toBe(20);
    for (let index = 1; index <= 20; index++)
      await test.store.conversations.append('s', exchange(index));
    expect(await test.store.conversations.get('s')).toHaveLength(20);
    await test.store.conversations.append('s', exchange(21));
    const ids = (await test.store.conversations.get('s')).map((entry) => entry.messageId);
    expect(ids).toHaveLength(20);
    expect(ids[0]).toBe('m2');
    expect(ids.at(-1)).toBe('m21');
  });

  it('returns the last n exchanges oldest first from recent()', async () => {
    for (let index = 1; index <= 5; index++)
      await test.store.conversations.append('s', exchange(index));
    const recent = await test.store.conversations.recent('s', 3);
    expect(recent.map((entry) => entry.messageId)).toEqual(['m3', 'm4', 'm5']);
    expect(await test.store.conversations.recent('s', 0)).toEqual([]);
    expect(await test.store.conversations.recent('s', 50)).toHaveLength(5);
    expect(await test.store.conversations.recent('nobody', 3)).toEqual([]);
  });

  it('keeps 200 senders and evicts the least recently active on the 201st', async () => {
    expect(DEFAULT_MAX_SENDERS).toBe(200);
    for (let index = 0; index < 200; index++) {
      await test.store.conversations.append(`sender-${index}`, exchange(index));
    }
    expect(await test.store.conversations.listSenders()).toHaveLength(200);
    // Activity by sender-0 makes sender-1 the least recently active.
    await test.store.conversations.append('sender-0', exchange(1000));
    await test.store.conversations.append('sender-200', exchange(200));
    const senders = await test.store.conversations.listSenders();
    const ids = new Set(senders.map((sender) => sender.senderId));
    expect(ids.size).toBe(200);
    expect(ids.has('sender-0')).toBe(true);
    expect(ids.has('sender-1')).toBe(false);
    expect(ids.has('sender-200')).toBe(true);
    expect(await test.store.conversations.get('sender-1')).toEqual([]);
  });

  it('lists senders with count and last activity, most recent first', async () => {
    await test.store.conversations.append('a', exchange(1));
    test.clock.advance(100);
    await test.store.conversations.append('b', exchange(2));
    await test.store.conversations.append('b', exchange(3));
    expect(await test.store.conversations.listSenders()).toEqual([
      { senderId: 'b', count: 2, lastActivityAt: 1_000_100 },
      { senderId: 'a', count: 1, lastActivityAt: 1_000_000 },
    ]);
  });

  it('keeps agents apart', async () => {
    await test.store.forAgent('agent-a').conversations.append('s', exchange(1));
    expect(await test.store.forAgent('agent-b').conversations.get('s')).toEqual([]);
    expect(await test.store.forAgent('agent-b').conversations.listSenders()).toEqual([]);
  });

  it('rejects a blank sender id and a malformed exchange', async () => {
    await expect(test.store.conversations.append('  ', exchange(1))).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
    const bad = { ...exchange(1), turnId: 42 } as never;
    await expect(test.store.conversations.append('s', bad)).rejects.toThrow(/turnId/);
    await expect(test.store.conversations.recent('s', -1)).rejects.toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });
});
