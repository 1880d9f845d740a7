import type { RLMChatCompletion } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../cli-io.js';
import { reportCompletion } from './report-completion.js';

function completion(extra: Partial<RLMChatCompletion>): RLMChatCompletion {
  return {
    runId: 'run-1',
    rootRunId: 'run-1',
    parentRunId: null,
    depth: 0,
    model: 'scripted/model',
    query: 'q',
    answer: 'forty-two',
    status: 'completed',
    partialAnswer: null,
    usage: { models: {}, cache: { hits: 0, misses: 0 } } as unknown as RLMChatCompletion['usage'],
    iterations: 3,
    executionTime: 10,
    trajectoryPath: null,
    error: null,
    ...extra,
  };
}

function capture(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
  } as unknown as CliIo;
  return { io, out, err };
}

const hints = {} as Parameters<typeof reportCompletion>[1]['hints'];

describe('rlm run’s report of a run whose REPL was reset', () => {
  it('says so on stderr for an answered run, keeps exit 0, and carries it in --json', () => {
    const plain = capture();
    const code = reportCompletion(completion({ sandboxResets: 2 }), {
      io: plain.io,
      json: false,
      quiet: false,
      hints,
    });
    expect(code).toBe(0);
    expect(plain.out.join('')).toBe('forty-two\n');
    expect(plain.err.join('')).toContain("The run's REPL was reset 2 times (sandbox.reset");
    const json = capture();
    reportCompletion(completion({ sandboxResets: 1 }), {
      io: json.io,
      json: true,
      quiet: true,
      hints,
    });
    expect(JSON.parse(json.out.join(''))).toMatchObject({ sandboxResets: 1 });
  });

  it('names the reset beside how a run without an answer ended', () => {
    const { io, err } = capture();
    reportCompletion(completion({ answer: null, status: 'max_iterations', sandboxResets: 1 }), {
      io,
      json: false,
      quiet: false,
      hints,
    });
    expect(err.join('')).toContain('iteration limit');
    expect(err.join('')).toContain("The run's REPL was reset once");
  });

  it('says nothing of resets when there were none', () => {
    const { io, err } = capture();
    reportCompletion(completion({}), { io, json: false, quiet: false, hints });
    expect(err.join('')).not.toContain('reset');
  });
});
