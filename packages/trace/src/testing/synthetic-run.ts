import type { JsonValue, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { runEventSchema } from '@rlm/protocol';
import { ExchangeEncoder } from '../recorded-exchanges.js';
import { trajectoryHeader } from '../trajectory-header.js';
import { TrajectoryPacker } from '../trajectory-packer.js';

/** Options of `syntheticRun`. */
export interface SyntheticRunOptions {
  /** Sub-calls in the whole tree (llm_query calls and rlm_query children). */
  subcalls: number;
  /** Root turns that make sub-calls. @default 4 */
  turns?: number;
  /** Every n-th sub-call is an rlm_query child with two llm_query calls of its own. @default 40 */
  childEvery?: number;
  /** Every n-th llm_query fails. @default 25 */
  failEvery?: number;
}

/** A recorded run made up for tests of views: its trajectory text and the context it slices. */
export interface SyntheticRun {
  /** The trajectory file's text, as the packer writes it. */
  text: string;
  /** The run's context: each llm_query's prompt carries one chunk of it. */
  context: string;
  /** Cost of each llm_query call, in call order (the i-th is `(i + 1) / 10000` dollars). */
  subcallCost(index: number): number;
  totalCostUsd: number;
}

const ROOT = 'synthetic-root';

/** One model call: a root turn's (no prompt) or an llm_query's. */
interface ModelCall {
  costUsd: number;
  prompt?: string;
  reply?: string;
  ok?: boolean;
}
const MODEL = 'testkit/synthetic';
const SUB_MODEL = 'testkit/synthetic-sub';

/**
 * A root run whose turns fan out into `subcalls` sub-calls (some failing, some rlm_query
 * children with their own sub-calls), recorded as a trajectory through the package's own
 * writer: events checked against the protocol schema, model exchanges delta-encoded, every line
 * packed with the run's context (so prompts hold slices of it). Times are made up and
 * deterministic.
 */
export function syntheticRun({
  subcalls,
  turns = 4,
  childEvery = 40,
  failEvery = 25,
}: SyntheticRunOptions): SyntheticRun {
  const chunks = Array.from(
    { length: 64 },
    (_, index) =>
      `Ticket ${index}: ${'the customer wrote about invoice number '.repeat(8)}${index * 7919} and asked for a refund. `,
  );
  const context = chunks.join('\n');
  const events: RunEvent[] = [];
  const records: TrajectoryRecord[] = [];
  const encoder = new ExchangeEncoder();
  let clock = 1_700_000_000_000;
  let calls = 0;
  let llmIndex = 0;
  let totalCostUsd = 0;
  const subcallCost = (index: number) => (index + 1) / 10_000;
  const emit = (
    run: { runId: string; parentRunId: string | null; depth: number },
    event: Record<string, unknown>,
  ) => {
    const full = runEventSchema.parse({ v: 1, rootRunId: ROOT, at: clock, ...run, ...event });
    events.push(full);
    records.push({ kind: 'event', event: full });
  };
  const modelCall = (
    run: { runId: string; parentRunId: string | null; depth: number },
    callId: string,
    { costUsd, prompt, reply = '', ok = true }: ModelCall,
  ) => {
    emit(run, {
      type: 'model-call-start',
      callId,
      model: prompt === undefined ? MODEL : SUB_MODEL,
      purpose: prompt === undefined ? 'root' : 'sub',
      messageCount: 1,
      promptChars: prompt?.length ?? 100,
    });
    clock += 40;
    totalCostUsd += ok ? costUsd : 0;
    emit(run, {
      type: 'model-call-end',
      callId,
      model: prompt === undefined ? MODEL : SUB_MODEL,
      ok,
      ...(ok
        ? { usage: { inputTokens: 100, outputTokens: 20 }, costUsd }
        : { error: { code: 'provider.server_error', message: 'upstream 500' } }),
      durationMs: 40,
    });
    if (prompt !== undefined) {
      records.push(
        encoder.encode({
          runId: run.runId,
          callId,
          system: undefined,
          messages: [{ role: 'user', content: prompt }],
          response: ok
            ? {
                text: reply,
                usage: {
                  inputTokens: 100,
                  outputTokens: 20,
                  cacheReadTokens: 0,
                  cacheWriteTokens: 0,
                },
                stopReason: 'end_turn',
                model: SUB_MODEL,
                costUsd,
              }
            : null,
          ...(ok ? {} : { error: { code: 'provider.server_error', message: 'upstream 500' } }),
        }),
      );
    }
  };
  const llmQuery = (run: { runId: string; parentRunId: string | null; depth: number }) => {
    const index = llmIndex++;
    const callId = `c${++calls}`;
    const chunk = chunks[index % chunks.length] ?? '';
    const prompt = `Summarise the ticket in one line.\n\n${chunk}`;
    const ok = (index + 1) % failEvery !== 0;
    const reply = ok ? `summary ${index}: refund request` : 'Error: upstream 500';
    emit(run, {
      type: 'subcall-start',
      callId,
      kind: 'llm',
      model: SUB_MODEL,
      promptPreview: prompt.slice(0, 200),
    });
    modelCall(run, callId, { costUsd: subcallCost(index), prompt, reply, ok });
    emit(run, {
      type: 'subcall-end',
      callId,
      kind: 'llm',
      ok,
      durationMs: 40,
      responsePreview: reply,
      ...(ok ? {} : { error: { code: 'provider.server_error', message: 'upstream 500' } }),
    });
  };
  // Children's own llm_query calls count as sub-calls too: plan the root's so the tree has `subcalls`.
  const childCount = childEvery > 0 ? Math.floor(subcalls / (childEvery + 2)) : 0;
  const runTurns = (
    run: { runId: string; parentRunId: string | null; depth: number },
    plan: number[],
    query: string,
  ) => {
    emit(run, {
      type: 'run-start',
      query,
      model: MODEL,
      context: [{ type: 'string', lengths: [context.length], totalLength: context.length }],
      maxIterations: 30,
      maxDepth: 2,
      promptVersion: 'synthetic',
    });
    const started = clock;
    plan.forEach((count, iteration) => {
      const turnStarted = clock;
      emit(run, { type: 'iteration-start', iteration });
      modelCall(run, `c${++calls}`, { costUsd: 0.01 });
      const code = `const parts = chunk(context, ${count});\nconst out = await llm_query_batched(parts.map(p => 'Summarise: ' + p));\nprint(out.length)`;
      emit(run, { type: 'block-start', iteration, index: 0, code });
      for (let done = 0; done < count; done++) {
        if (run.depth === 0 && isChildSlot(rootSlot++)) child(run);
        else llmQuery(run);
      }
      const failed = iteration === 1;
      emit(run, {
        type: 'block-end',
        iteration,
        index: 0,
        stdout: failed ? '' : `${count}\n`,
        stderr: '',
        executionTime: 30,
        finalAnswer: null,
        error: failed ? { name: 'TypeError', message: 'out.map is not a function' } : null,
      });
      emit(run, {
        type: 'iteration-end',
        iteration,
        response: `\`\`\`repl\n${code}\n\`\`\``,
        finalAnswer: null,
        durationMs: clock - turnStarted,
      });
    });
    const answer = run.depth === 0 ? 'Most tickets ask for a refund.' : 'child summary';
    emit(run, { type: 'final-answer', answer, source: 'code' });
    emit(run, {
      type: 'run-end',
      status: 'completed',
      answer,
      partialAnswer: null,
      usage: { models: {} },
      iterations: plan.length,
      durationMs: clock - started,
    });
  };
  let childRuns = 0;
  let rootSlot = 0;
  const isChildSlot = (slot: number) =>
    childEvery > 0 && (slot + 1) % childEvery === 0 && childRuns < childCount;
  const child = (parent: { runId: string; depth: number }) => {
    childRuns += 1;
    const callId = `c${++calls}`;
    const runId = `synthetic-child-${childRuns}`;
    emit(
      { runId: parent.runId, parentRunId: null, depth: parent.depth },
      {
        type: 'subcall-start',
        callId,
        kind: 'rlm',
        model: MODEL,
        promptPreview: `Look into batch ${childRuns}`,
        childRunId: runId,
      },
    );
    const started = clock;
    runTurns(
      { runId, parentRunId: parent.runId, depth: parent.depth + 1 },
      [2],
      `Look into batch ${childRuns}`,
    );
    emit(
      { runId: parent.runId, parentRunId: null, depth: parent.depth },
      {
        type: 'subcall-end',
        callId,
        kind: 'rlm',
        ok: true,
        durationMs: clock - started,
        responsePreview: 'child summary',
        childRunId: runId,
      },
    );
  };
  const rootCalls = subcalls - childCount * 2;
  const plan = Array.from(
    { length: turns },
    (_, turn) => Math.floor(rootCalls / turns) + (turn < rootCalls % turns ? 1 : 0),
  );
  runTurns({ runId: ROOT, parentRunId: null, depth: 0 }, plan, 'What do the tickets ask for?');
  if (llmIndex + childRuns !== subcalls) {
    throw new Error(`syntheticRun made ${llmIndex + childRuns} sub-calls, not ${subcalls}`);
  }
  const payloads: JsonValue[] = [context];
  const packer = new TrajectoryPacker({ payloads });
  const header = trajectoryHeader({ runId: ROOT, createdAt: 1_700_000_000_000, config: {} });
  const text = [header, ...records].map((record) => JSON.stringify(packer.pack(record))).join('\n');
  return { text: `${text}\n`, context, subcallCost, totalCostUsd };
}
