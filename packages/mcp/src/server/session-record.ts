import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { jsonlFileSink, memoryTrajectorySink, type TrajectorySink } from '@rlm/executor';
import { RlmError, type TrajectoryRecord } from '@rlm/protocol';
import { SessionTrajectory, type SessionTrajectoryOptions } from './session-trajectory.js';

const URI_PREFIX = 'rlm://sessions/';
const MIME_TYPE = 'application/x-ndjson';

/**
 * Where a session's trajectory goes: `{ dir }` writes `<dir>/<id>.jsonl` as runs do (what
 * `rlm trace <id>` finds), a function gives any sink, `'memory'` keeps it in memory.
 */
export type SessionTrajectoryTarget =
  | { dir: string }
  | ((sessionId: string) => TrajectorySink)
  | 'memory';

type ReadableSink = TrajectorySink & { readonly records?: readonly TrajectoryRecord[] };

/** A new session record id: runs are UUIDs, sessions are marked so their files stand apart. */
export function newSessionRecordId(): string {
  return `mcp-${randomUUID()}`;
}

/**
 * The trajectory of one MCP session and its resource `rlm://sessions/{id}`: listed once the
 * session recorded something, read from its file (or memory) while the session lives.
 */
export class SessionRecord {
  readonly trajectory: SessionTrajectory;

  constructor(
    target: SessionTrajectoryTarget,
    options: Omit<SessionTrajectoryOptions, 'openSink' | 'sessionId'> & { sessionId?: string },
  ) {
    const sessionId = options.sessionId ?? newSessionRecordId();
    const openSink = (): TrajectorySink => {
      if (target === 'memory') return memoryTrajectorySink();
      try {
        return typeof target === 'function'
          ? target(sessionId)
          : jsonlFileSink(target.dir, sessionId);
      } catch {
        // An unwritable directory must not fail the tool call: the resource still has the record.
        return memoryTrajectorySink();
      }
    };
    this.trajectory = new SessionTrajectory({ ...options, sessionId, openSink });
  }

  get uri(): string {
    return `${URI_PREFIX}${this.trajectory.sessionId}`;
  }

  list(): Resource[] {
    if (!this.trajectory.started) return [];
    return [
      {
        uri: this.uri,
        name: `session ${this.trajectory.sessionId}`,
        description: `This MCP session's REPL work (${this.trajectory.turns} tool calls): blocks, outputs, sub-calls.`,
        mimeType: MIME_TYPE,
      },
    ];
  }

  static template(): ResourceTemplate {
    return {
      uriTemplate: `${URI_PREFIX}{id}`,
      name: 'session',
      description:
        "An MCP session's trajectory (JSONL, the format of runs; `rlm trace` reads it): each context_load, repl_exec and repl_reset a turn, with code, output and sub-calls.",
      mimeType: MIME_TYPE,
    };
  }

  /** Whether `uri` names a session (this one or another). */
  static owns(uri: string): boolean {
    return uri.startsWith(URI_PREFIX);
  }

  /** @throws RlmError `server.not_found` for another session, or one not recorded yet */
  async read(uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
    const id = uri.slice(URI_PREFIX.length);
    const text =
      id === this.trajectory.sessionId && this.trajectory.started ? await this.#text() : undefined;
    if (text === undefined) {
      throw new RlmError({
        code: 'server.not_found',
        message: `There is no session trajectory at ${uri}; a session reads only its own (list the resources), once it loaded a context or ran a block.`,
        details: { resource: 'session', id },
      });
    }
    return { uri, mimeType: MIME_TYPE, text };
  }

  async #text(): Promise<string | undefined> {
    const sink = this.trajectory.sink as ReadableSink | undefined;
    if (sink === undefined) return undefined;
    if (sink.path !== undefined) return readFile(sink.path, 'utf8').catch(() => undefined);
    const records = sink.records;
    if (records === undefined) return undefined;
    return records.map((record) => `${JSON.stringify(record)}\n`).join('');
  }
}
