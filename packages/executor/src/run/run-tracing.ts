import {
  type Attributes,
  type Context,
  context as otelContext,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import {
  type ModelResponse,
  type REPLResult,
  type RLMChatCompletion,
  RlmError,
  totalUsage,
} from '@rlm/protocol';
import { errorInfo } from './error-info.js';

/** The instrumentation scope name of every span the executor starts. */
export const TRACER_NAME = '@rlm/executor';

/** The tracer `config.tracer`, else `config.tracerProvider`'s, else the global provider's. */
export function tracerOf(config: {
  tracer?: Tracer | undefined;
  tracerProvider?: TracerProvider | undefined;
}): Tracer {
  if (config.tracer !== undefined) return config.tracer;
  const provider = config.tracerProvider ?? trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider
    ? new GlobalTracer(provider)
    : provider.getTracer(TRACER_NAME);
}

/** What a tracer of a provider that has no delegate does: nothing (the API's no-op tracer). */
const NOOP_TRACER = new ProxyTracerProvider().getTracer(TRACER_NAME);

/**
 * The global provider's tracer, as the API's own proxy tracer behaves: each span goes to the
 * delegate registered by then (found once, then kept), or to the no-op tracer while there is none.
 * Unlike the API's proxy, it can say that no provider is registered yet, so the loop skips
 * building spans that would record nothing (the usual case: no OpenTelemetry SDK in the process).
 */
class GlobalTracer implements Tracer {
  readonly #provider: ProxyTracerProvider;
  #delegate: Tracer | undefined;

  constructor(provider: ProxyTracerProvider) {
    this.#provider = provider;
  }

  /** The registered provider's tracer, or `undefined` while none is registered. */
  delegate(): Tracer | undefined {
    this.#delegate ??= this.#provider.getDelegateTracer(TRACER_NAME);
    return this.#delegate;
  }

  startSpan(name: string, options?: SpanOptions, context?: Context): Span {
    return (this.delegate() ?? NOOP_TRACER).startSpan(name, options, context);
  }

  startActiveSpan: Tracer['startActiveSpan'] = (...args: unknown[]) => {
    const tracer = this.delegate() ?? NOOP_TRACER;
    return Reflect.apply(tracer.startActiveSpan, tracer, args);
  };
}

/** The GenAI semantic-convention name of the agent every run span invokes. */
const AGENT_NAME = 'rlm';

/**
 * The open spans of one invocation, as contexts: children of the innermost one go under it (a
 * sub-call under its code block, a root model call under its iteration).
 */
export class NodeSpans {
  run: Context | undefined;
  iteration: Context | undefined;
  block: Context | undefined;
  #runSpan: Span | undefined;

  constructor(readonly parent: Context) {}

  /** Where a span started now belongs. */
  current(): Context {
    return this.block ?? this.iteration ?? this.run ?? this.parent;
  }

  get runSpan(): Span | undefined {
    return this.#runSpan;
  }

  set runSpan(span: Span | undefined) {
    this.#runSpan = span;
    this.run = span === undefined ? undefined : trace.setSpan(this.parent, span);
  }
}

/** What a run span's end reports. */
type RunOutcome = Pick<RLMChatCompletion, 'status' | 'iterations' | 'usage' | 'error'>;

/**
 * The run tree's OpenTelemetry spans, named and attributed after the GenAI semantic conventions:
 * `invoke_agent rlm` per invocation (root and children), `rlm.iteration` per turn, `chat <model>`
 * per model call (`gen_ai.usage.*` tokens, `rlm.cost_usd`), `execute_tool repl` per code block,
 * and `execute_tool llm_query` / `execute_tool rlm_query` per sub-call, a child's run nested under
 * the sub-call that started it. On `@opentelemetry/api` only: without a registered SDK (or an
 * injected tracer) every span is a no-op.
 */
export class RunTracing {
  readonly #tracer: Tracer;
  /**
   * The context a model call runs in while no provider is registered, per parent context: the
   * no-op span there carries nothing but its parent's span context, so one per parent serves
   * every call under it (a run's turns share one parent) instead of a span and a context a call.
   */
  readonly #noOpCallContexts = new WeakMap<Context, Context>();

  constructor(tracer: Tracer) {
    this.#tracer = tracer;
  }

  /**
   * True while every span would be the no-op tracer's: the global provider's tracer with no
   * provider registered. A turn then skips its iteration, model-call and block spans: a no-op span
   * carries its parent's span context, so a span started under the parent instead has the same
   * parent, should a provider be registered later in the run.
   */
  #recordsNothing(): boolean {
    return this.#tracer instanceof GlobalTracer && this.#tracer.delegate() === undefined;
  }

  /** Starts an invocation's span; returns its trace and span ids when it records. */
  startRun(
    {
      spans,
      runId,
      parentRunId,
      depth,
    }: { spans: NodeSpans; runId: string; parentRunId: string | null; depth: number },
    model: string,
  ): { traceId: string; spanId: string } | undefined {
    const span = this.#tracer.startSpan(
      `invoke_agent ${AGENT_NAME}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': AGENT_NAME,
          'gen_ai.agent.id': runId,
          'gen_ai.request.model': model,
          'rlm.run_id': runId,
          'rlm.depth': depth,
          ...(parentRunId === null ? {} : { 'rlm.parent_run_id': parentRunId }),
        },
      },
      spans.parent,
    );
    spans.runSpan = span;
    if (!span.isRecording()) return undefined;
    const { traceId, spanId } = span.spanContext();
    return { traceId, spanId };
  }

  /** Ends an invocation's span with its status, iterations and the tree-wide usage under it. */
  endRun(spans: NodeSpans, outcome: RunOutcome): void {
    const span = spans.runSpan;
    if (span === undefined) return;
    const total = totalUsage(outcome.usage);
    span.setAttributes({
      'rlm.status': outcome.status,
      'rlm.iterations': outcome.iterations,
      ...usageAttributes(total),
      'rlm.cost_usd': total.costUsd,
    });
    if (outcome.status === 'error' || outcome.status === 'interrupted') {
      span.setAttribute('error.type', outcome.error?.code ?? outcome.status);
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: outcome.error?.message ?? outcome.status,
      });
    } else if (outcome.error !== null) {
      span.setAttribute('rlm.stop_reason', outcome.error.code);
    }
    span.end();
    spans.runSpan = undefined;
  }

  /**
   * Ends an invocation's span that is still open because the invocation threw instead of
   * returning its result: an error span, as the error says. Nothing when it has ended already.
   */
  abandonRun(spans: NodeSpans, error: unknown): void {
    const span = spans.runSpan;
    if (span === undefined) return;
    failSpan(span, error);
    span.end();
    spans.runSpan = undefined;
  }

  /** Runs one turn inside its `rlm.iteration` span. */
  iteration<T>(spans: NodeSpans, iteration: number, turn: () => Promise<T>): Promise<T> {
    return this.#recordsNothing() ? turn() : this.#iteration(spans, iteration, turn);
  }

  async #iteration<T>(spans: NodeSpans, iteration: number, turn: () => Promise<T>): Promise<T> {
    const span = this.#tracer.startSpan(
      'rlm.iteration',
      { kind: SpanKind.INTERNAL, attributes: { 'rlm.iteration': iteration } },
      spans.current(),
    );
    spans.iteration = trace.setSpan(spans.current(), span);
    try {
      return await turn();
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      spans.iteration = undefined;
      span.end();
    }
  }

  /** Runs one code block inside its `execute_tool repl` span. */
  block(
    spans: NodeSpans,
    block: { iteration: number; index: number; code: string },
    run: () => Promise<REPLResult>,
  ): Promise<REPLResult> {
    return this.#recordsNothing() ? run() : this.#block(spans, block, run);
  }

  async #block(
    spans: NodeSpans,
    { iteration, index, code }: { iteration: number; index: number; code: string },
    run: () => Promise<REPLResult>,
  ): Promise<REPLResult> {
    const span = this.#tracer.startSpan(
      'execute_tool repl',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'repl',
          'rlm.iteration': iteration,
          'rlm.block_index': index,
          'rlm.code_chars': code.length,
        },
      },
      spans.current(),
    );
    spans.block = trace.setSpan(spans.current(), span);
    try {
      const result = await run();
      span.setAttribute('rlm.output_chars', result.stdout.length + result.stderr.length);
      if (result.error !== null) {
        span.setAttribute('error.type', result.error.code ?? result.error.name);
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message });
      }
      return result;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      spans.block = undefined;
      span.end();
    }
  }

  /**
   * Starts the span of a sub-call made from code (`llm_query`, `rlm_query`): its model call or
   * child run goes under `context`.
   */
  startSubCall(
    spans: NodeSpans,
    { kind, callId, model }: { kind: 'llm' | 'rlm'; callId: string; model: string },
  ): { span: Span; context: Context } {
    const tool = kind === 'llm' ? 'llm_query' : 'rlm_query';
    const parent = spans.current();
    const span = this.#tracer.startSpan(
      `execute_tool ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'gen_ai.tool.call.id': callId,
          'gen_ai.request.model': model,
        },
      },
      parent,
    );
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Ends a sub-call's span; a failed one is an error span. */
  endSubCall(
    span: Span,
    { ok, error }: { ok: boolean; error?: { code: string; message: string } | undefined },
  ): void {
    if (!ok) {
      span.setAttribute('error.type', error?.code ?? 'failed');
      span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? 'failed' });
    }
    span.end();
  }

  /**
   * Runs one model call inside its `chat <model>` span (the active context while the provider is
   * called, so HTTP instrumentation nests under it).
   */
  modelCall(
    parent: Context,
    call: { model: string; purpose: string; callId: string; maxTokens: number | undefined },
    respond: () => Promise<ModelResponse>,
  ): Promise<ModelResponse> {
    if (!this.#recordsNothing()) return this.#modelCall(parent, call, respond);
    // The provider is still called in the context a no-op span would give it: its own clients'
    // instrumentation sees the same parent.
    return otelContext.with(this.#noOpCallContext(parent), respond);
  }

  #noOpCallContext(parent: Context): Context {
    let context = this.#noOpCallContexts.get(parent);
    if (context === undefined) {
      context = trace.setSpan(parent, NOOP_TRACER.startSpan('chat', undefined, parent));
      this.#noOpCallContexts.set(parent, context);
    }
    return context;
  }

  async #modelCall(
    parent: Context,
    call: { model: string; purpose: string; callId: string; maxTokens: number | undefined },
    respond: () => Promise<ModelResponse>,
  ): Promise<ModelResponse> {
    const span = this.#tracer.startSpan(
      `chat ${call.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': call.model.slice(0, Math.max(0, call.model.indexOf('/'))),
          'gen_ai.request.model': call.model,
          ...(call.maxTokens === undefined ? {} : { 'gen_ai.request.max_tokens': call.maxTokens }),
          'rlm.purpose': call.purpose,
          'rlm.call_id': call.callId,
        },
      },
      parent,
    );
    try {
      const response = await otelContext.with(trace.setSpan(parent, span), respond);
      span.setAttributes({
        'gen_ai.response.model': response.model,
        'gen_ai.response.finish_reasons': [response.stopReason],
        ...usageAttributes(response.usage),
        ...(response.costUsd === undefined ? {} : { 'rlm.cost_usd': response.costUsd }),
        ...(response.requestId === undefined ? {} : { 'rlm.request_id': response.requestId }),
      });
      return response;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** Token counts as GenAI attributes: input tokens include cache reads and writes. */
function usageAttributes(usage: {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}): Attributes {
  return {
    'gen_ai.usage.input_tokens': usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cacheReadTokens,
    'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteTokens,
  };
}

function failSpan(span: Span, error: unknown): void {
  const info = errorInfo(error);
  span.setAttribute(
    'error.type',
    RlmError.is(error) ? error.code : info.code === 'unknown' ? 'Error' : info.code,
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
}
