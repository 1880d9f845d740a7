import { setMaxListeners } from 'node:events';
import { type JsonValue, jsonValueSchema, RlmError } from '@rlm/protocol';
import type { ContextScanner } from '@rlm/sandbox/context-ops';
import { z } from 'zod';
import { MAX_BRIDGE_CHARS } from './child/child-messages.js';
import { runPythonHelper } from './context-ops/python-context-scanner.js';
import type { HostFunction } from './sandbox-options.js';

/** A host call as the scaffold writes it to `/dev/rlm`. */
const hostRequestSchema = z.object({ fn: z.string(), args: z.array(jsonValueSchema) }).strict();

export interface HostCallRouterOptions {
  functions: Record<string, HostFunction>;
  /** Serves the context helpers, when they are on. */
  scanner: ContextScanner | undefined;
  helperNames: readonly string[];
}

/**
 * Runs the host calls a Python block makes (one at a time: Python waits for each) and turns the
 * outcome into the JSON reply the scaffold reads. Every call listens to a signal that aborts
 * when the block is stopped or the sandbox disposed.
 */
export class HostCallRouter {
  readonly #options: HostCallRouterOptions;
  readonly #calls = new Map<number, AbortController>();

  constructor(options: HostCallRouterOptions) {
    this.#options = options;
  }

  /** Runs one call; resolves with the reply text (never rejects). */
  async run(callId: number, requestText: string): Promise<string> {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    this.#calls.set(callId, controller);
    try {
      const value = await this.#dispatch(requestText, controller.signal);
      return encodeReply({ ok: true, value: value ?? null });
    } catch (error) {
      return encodeReply({ ok: false, error: describeHostError(error) });
    } finally {
      this.#calls.delete(callId);
    }
  }

  /** Aborts one call (the block was interrupted while waiting for it). */
  cancel(callId: number): void {
    this.#calls.get(callId)?.abort();
    this.#calls.delete(callId);
  }

  /** Aborts every call still running. */
  cancelAll(): void {
    for (const controller of this.#calls.values()) controller.abort();
    this.#calls.clear();
  }

  async #dispatch(requestText: string, signal: AbortSignal): Promise<JsonValue | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(requestText);
    } catch {
      parsed = undefined;
    }
    const request = hostRequestSchema.safeParse(parsed);
    if (!request.success) {
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: 'a host call must be {"fn": name, "args": [JSON values]}',
        details: { name: '/dev/rlm', reason: 'malformed host call' },
      });
    }
    const { fn: name, args } = request.data;
    const { functions, scanner, helperNames } = this.#options;
    if (scanner !== undefined && helperNames.includes(name)) {
      return runPythonHelper(scanner, { helper: name, args, signal });
    }
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
    if (fn === undefined) {
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `no host function named ${name}`,
        details: { name, reason: 'unknown host function' },
      });
    }
    return fn.call(args, { signal });
  }
}

function describeHostError(error: unknown): { name: string; message: string; code?: string } {
  if (RlmError.is(error)) return { name: 'RlmError', message: error.message, code: error.code };
  if (error instanceof Error) {
    const name = /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'Error';
    return { name, message: error.message };
  }
  return { name: 'Error', message: String(error) };
}

function encodeReply(reply: object): string {
  try {
    const text = JSON.stringify(reply);
    if (text.length <= MAX_BRIDGE_CHARS) return text;
    const message = `the host function's result is ${text.length} characters; at most ${MAX_BRIDGE_CHARS} cross into the sandbox`;
    return JSON.stringify({ ok: false, error: { name: 'ValueError', message } });
  } catch (error) {
    const message = `the host function returned a value that is not JSON (${error instanceof Error ? error.message : String(error)})`;
    return JSON.stringify({ ok: false, error: { name: 'TypeError', message } });
  }
}
