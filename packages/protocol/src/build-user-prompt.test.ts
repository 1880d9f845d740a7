import { describe, expect, it } from 'vitest';
import { buildUserPrompt } from './build-user-prompt.js';

describe('buildUserPrompt', () => {
  it('opens turn 0 with the safeguard against answering before looking', () => {
    const prompt = buildUserPrompt({ iteration: 0 });
    expect(prompt).toMatch(/^You have not looked at the REPL or your context yet/);
    expect(prompt).toContain("Don't give a final answer in this turn");
  });

  it('opens later turns by pointing at the earlier REPL work', () => {
    const prompt = buildUserPrompt({ iteration: 3 });
    expect(prompt).toMatch(/^Everything above is your earlier work with the REPL\./);
    expect(prompt).not.toContain('You have not looked');
  });

  it('asks for step-by-step work in repl blocks and for the next action', () => {
    const prompt = buildUserPrompt({ iteration: 1 });
    expect(prompt).toContain('```repl');
    expect(prompt).toContain('`context`');
    expect(prompt).toMatch(/What do you do next\?$/);
  });

  it('quotes the root prompt as the original prompt', () => {
    const prompt = buildUserPrompt({ iteration: 0, rootPrompt: 'Who won in 1998?' });
    expect(prompt).toContain('the original prompt: "Who won in 1998?"');
  });

  it('adds no notes for one context and no history', () => {
    const prompt = buildUserPrompt({ iteration: 0, contextCount: 1, historyCount: 0 });
    expect(prompt).not.toContain('Note:');
  });

  it('names context_0 through context_{n-1} when there are several contexts', () => {
    const prompt = buildUserPrompt({ iteration: 2, contextCount: 3 });
    expect(prompt).toContain('`context_0` through `context_2`');
  });

  it('mentions `history` for one earlier conversation', () => {
    const prompt = buildUserPrompt({ iteration: 0, historyCount: 1 });
    expect(prompt).toContain('`history` holds your earlier conversation');
    expect(prompt).not.toContain('history_0');
  });

  it('names history_0 through history_{n-1} for several earlier conversations', () => {
    const prompt = buildUserPrompt({ iteration: 0, historyCount: 4 });
    expect(prompt).toContain('`history_0` through `history_3`');
  });

  it('puts the context note before the history note', () => {
    const prompt = buildUserPrompt({ iteration: 0, contextCount: 2, historyCount: 2 });
    expect(prompt.indexOf('context_1')).toBeLessThan(prompt.indexOf('history_1'));
  });
});
