import type { JsonValue, RunEvent, RunEventOf, TrajectoryRecord } from '@rlm/protocol';
import {
  type RecordedExchange,
  recordedExchanges,
  trajectoryEvents,
  trajectoryReplLanguage,
} from '@rlm/trace';

type Json = Record<string, JsonValue>;

interface Index {
  eventsByRun: Map<string, RunEvent[]>;
  exchanges: Map<string, RecordedExchange>;
}

function seconds(ms: number): number {
  return ms / 1000;
}

function promptOf(exchange: RecordedExchange | undefined): JsonValue {
  if (exchange === undefined) return [];
  const system =
    exchange.system === undefined ? [] : [{ role: 'system', content: exchange.system }];
  return [...system, ...exchange.messages];
}

/** A child's `rlm_calls` entry, with its own iterations nested in `metadata` as rlmpaper does. */
function rlmCall(
  index: Index,
  {
    start,
    end,
  }: { start: RunEventOf<'subcall-start'>; end: RunEventOf<'subcall-end'> | undefined },
): Json {
  const child = start.childRunId;
  const exchange = index.exchanges.get(start.callId);
  return {
    root_model: start.model,
    prompt: exchange?.messages.at(-1)?.content ?? start.promptPreview,
    response: exchange?.response?.text ?? end?.responsePreview ?? '',
    execution_time: seconds(end?.durationMs ?? 0),
    metadata:
      child === undefined
        ? null
        : { run_metadata: { run_id: child }, iterations: iterations(index, child) },
  };
}

function codeBlocks(index: Index, events: readonly RunEvent[]): Json[] {
  const blocks: Json[] = [];
  let calls: Json[] = [];
  const starts = new Map<string, RunEventOf<'subcall-start'>>();
  const ends = new Map<string, RunEventOf<'subcall-end'>>();
  for (const event of events) {
    if (event.type === 'subcall-start') starts.set(event.callId, event);
    if (event.type === 'subcall-end') ends.set(event.callId, event);
    if (event.type === 'block-start') calls = [];
    if (event.type !== 'block-end') continue;
    for (const start of starts.values())
      calls.push(rlmCall(index, { start, end: ends.get(start.callId) }));
    starts.clear();
    blocks.push({
      code: '',
      result: {
        stdout: event.stdout,
        stderr: event.stderr,
        locals: {},
        execution_time: seconds(event.executionTime),
        rlm_calls: calls,
        final_answer: event.finalAnswer,
      },
    });
  }
  const codes = events.filter((event) => event.type === 'block-start');
  return blocks.map((block, position) => ({ ...block, code: codes[position]?.code ?? '' }));
}

/** The iteration lines of one run, built from its events and exchanges. */
function iterations(index: Index, runId: string): Json[] {
  const events = index.eventsByRun.get(runId) ?? [];
  const lines: Json[] = [];
  let current: RunEvent[] = [];
  for (const event of events) {
    if (event.type === 'iteration-start') current = [];
    current.push(event);
    if (event.type !== 'iteration-end') continue;
    const call = current.find(
      (item): item is RunEventOf<'model-call-start'> =>
        item.type === 'model-call-start' && item.purpose === 'root',
    );
    lines.push({
      type: 'iteration',
      iteration: event.iteration + 1,
      timestamp: new Date(event.at).toISOString(),
      prompt: promptOf(call === undefined ? undefined : index.exchanges.get(call.callId)),
      response: event.response,
      code_blocks: codeBlocks(index, current),
      final_answer: event.finalAnswer,
      iteration_time: seconds(event.durationMs),
    });
  }
  return lines;
}

/**
 * Converts one of our trajectories to the reference engine's JSONL log (one `metadata` line,
 * then one `iteration` line per root turn, children nested under `rlm_calls[].metadata`), so
 * runs can be opened in its visualizer. Returns the JSONL text.
 *
 * @example
 * await writeFile('run.rlmpaper.jsonl', exportRlmpaperLog(await readTrajectory(path)));
 */
export function exportRlmpaperLog(records: readonly TrajectoryRecord[]): string {
  const header = records.find((record) => record.kind === 'header');
  const events = trajectoryEvents(records);
  const eventsByRun = new Map<string, RunEvent[]>();
  for (const event of events) {
    const list = eventsByRun.get(event.runId) ?? [];
    list.push(event);
    eventsByRun.set(event.runId, list);
  }
  const exchanges = new Map(recordedExchanges(records).map((item) => [item.callId, item]));
  const index: Index = { eventsByRun, exchanges };
  const rootStart = events.find((event) => event.type === 'run-start' && event.depth === 0);
  const rootRunId = rootStart?.runId ?? header?.runId ?? '';
  const config = header?.config ?? {};
  const metadata: Json = {
    type: 'metadata',
    timestamp: header?.createdAt ?? new Date(0).toISOString(),
    root_model: config['model'] ?? null,
    max_depth: config['maxDepth'] ?? null,
    max_iterations: config['maxIterations'] ?? null,
    backend: 'rlm-ts',
    backend_kwargs: { model_name: config['model'] ?? null },
    // The interpreter the root's REPL ran: QuickJS for JavaScript, Pyodide for Python.
    environment_type: trajectoryReplLanguage(records) === 'python' ? 'pyodide' : 'quickjs',
    environment_kwargs: { isolation: config['isolation'] ?? null },
    other_backends: config['subModel'] === undefined ? [] : [config['subModel']],
  };
  return (
    [metadata, ...iterations(index, rootRunId)].map((line) => JSON.stringify(line)).join('\n') +
    '\n'
  );
}
