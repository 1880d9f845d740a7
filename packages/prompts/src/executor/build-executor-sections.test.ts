import { describe, expect, it } from 'vitest';
import { buildExecutorSections } from './build-executor-sections.js';
import type { ExecutorSectionsInput } from './executor-sections-input.js';

const base: ExecutorSectionsInput = {
  role: { text: 'You triage support tickets for Acme.', source: 'agent-config' },
  constraints: [{ text: 'Never promise refunds above $50.', source: 'policy:refunds' }],
  goals: [{ text: 'Close ticket #12 today.', source: 'goal-store#3' }],
  pendingActions: [{ text: 'Reply to Bob about shipping.', source: 'scheduler#9' }],
  conversation: [
    { text: 'user: Where is order 7?', source: 'conversation:bob#1' },
    { text: 'agent: Checking now.', source: 'conversation:bob#2' },
  ],
  observations: [{ text: 'Order 7 left the warehouse.', source: 'tool:orders' }],
  episodic: [
    { text: 'Bob asked about order 5 last week.', source: 'memory:episodic#41' },
    { text: 'Bob was happy with express shipping.', source: 'memory:episodic#12' },
  ],
  semantic: [{ text: 'Express shipping takes 2 days.', source: 'memory:semantic#3' }],
  budget: { tokensRemaining: 5_000, callsRemaining: 4, timeRemainingMs: 61_000 },
  actions: [{ name: 'send_reply', description: 'Sends a reply to a sender.', source: 'tools' }],
  task: { text: 'Answer Bob about order 7.', source: 'inbox#77' },
};

describe('buildExecutorSections', () => {
  it('renders every section in order with provenance on each item', () => {
    const { sections, text } = buildExecutorSections(base);
    expect(sections.map((section) => section.id)).toEqual([
      'role',
      'goals',
      'working-memory',
      'budget',
      'actions',
      'task',
    ]);
    for (const source of [
      'agent-config',
      'policy:refunds',
      'goal-store#3',
      'scheduler#9',
      'conversation:bob#1',
      'tool:orders',
      'memory:episodic#41',
      'memory:semantic#3',
      'runtime',
      'tools',
      'inbox#77',
    ]) {
      expect(text).toContain(`[source: ${source}]`);
    }
    expect(text).toContain('Relevant episodic memories:\n- [source: memory:episodic#41] Bob asked');
    expect(text).toContain('tokens left 5000; model calls left 4; time left 61 s');
  });

  it('returns everything and drops nothing when it fits', () => {
    const result = buildExecutorSections(base);
    expect(result.dropped).toEqual([]);
    expect(result.chars).toBe(result.text.length);
    expect(result.text).not.toContain('## Left out');
  });

  it('drops the lowest-priority items first and says what it dropped', () => {
    const full = buildExecutorSections(base).chars;
    const result = buildExecutorSections({ ...base, maxChars: full - 40 });
    expect(result.chars).toBeLessThanOrEqual(full - 40);
    expect(result.dropped[0]).toMatchObject({ kind: 'episodic', source: 'memory:episodic#12' });
    expect(result.text).toContain(
      `## Left out\nTo stay within ${full - 40} characters, ${result.dropped.length} lower-priority items`,
    );
    expect(result.text).toContain('Never promise refunds');
  });

  it('lists the sources of dropped items when the note fits', () => {
    const bulky = {
      text: `Long transcript ${'.'.repeat(1_000)}`,
      source: 'memory:episodic#99',
      priority: 1,
    };
    const input = { ...base, episodic: [...(base.episodic ?? []), bulky] };
    const full = buildExecutorSections(input).chars;
    const result = buildExecutorSections({ ...input, maxChars: full - 10 });
    expect(result.dropped.map((item) => item.source)).toEqual(['memory:episodic#99']);
    expect(result.text).toContain('(1 episodic; sources: memory:episodic#99)');
  });

  it('honours item priorities over kind defaults', () => {
    const result = buildExecutorSections({
      ...base,
      episodic: [{ text: 'Bob is a VIP customer.', source: 'memory:episodic#1', priority: 99 }],
      maxChars: buildExecutorSections(base).chars - 120,
    });
    expect(result.text).toContain('Bob is a VIP customer.');
    expect(result.dropped.map((item) => item.kind)).toContain('semantic');
  });

  it('drops the oldest conversation message before the newest', () => {
    const onlyTalk: ExecutorSectionsInput = {
      role: 'r',
      task: 't',
      conversation: [
        { text: `first message ${'.'.repeat(200)}`, source: 'c#1' },
        { text: `second message ${'.'.repeat(200)}`, source: 'c#2' },
        { text: `third message ${'.'.repeat(200)}`, source: 'c#3' },
      ],
    };
    const full = buildExecutorSections(onlyTalk).chars;
    const result = buildExecutorSections({ ...onlyTalk, maxChars: full - 1 });
    expect(result.dropped.map((item) => item.source)).toEqual(['c#1']);
    expect(result.text).toContain('second message');
    expect(result.text).toContain('third message');
  });

  it('trims deterministically', () => {
    const input = { ...base, maxChars: 700 };
    const first = buildExecutorSections(input);
    for (let run = 0; run < 5; run += 1) expect(buildExecutorSections(input)).toEqual(first);
    expect(first.chars).toBeLessThanOrEqual(700);
  });

  it('never drops role or task, and fails when they alone do not fit', () => {
    const tight = buildExecutorSections({ ...base, maxChars: 360 });
    expect(tight.text).toContain('You triage support tickets');
    expect(tight.text).toContain('Answer Bob about order 7.');
    expect(() => buildExecutorSections({ ...base, maxChars: 40 })).toThrow(
      expect.objectContaining({ code: 'prompts.prompt_too_long' }),
    );
  });

  it('names a bad field', () => {
    expect(() =>
      buildExecutorSections({ role: 'r', task: 't', goals: [{ text: 'g', source: '' }] }),
    ).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: expect.objectContaining({ issues: [expect.stringContaining('goals.0.source')] }),
      }),
    );
  });
});
