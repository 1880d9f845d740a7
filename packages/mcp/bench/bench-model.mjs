// A zero-latency model for the benchmarks: turn 0 runs one trivial block, turn 1 answers.
export function benchModel() {
  return {
    id: 'bench/model',
    async complete(request) {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      const text = turn === 0 ? '```repl\nconst n = context.length\n```' : 'FINAL_VAR(n)';
      const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
      return { text, usage, stopReason: 'end_turn', model: 'bench/model' };
    },
  };
}
