import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { type RLMChatCompletion, RlmError } from '@rlm/protocol';
import { safeParseTrajectory } from '@rlm/trace';

const URI_PREFIX = 'rlm://runs/';
/** Runs a session lists as resources, the latest kept. @default 200 */
export const MAX_LISTED_RUNS = 200;

/**
 * A run's trajectory file as whole records, one per line: the file's packed lines (slices of the
 * context, texts written once, deltas) are expanded by `@rlm/trace`, each slice of the context
 * read as a note naming it (the context is not the resource's to serve).
 */
async function trajectoryFile(run: RLMChatCompletion): Promise<string | undefined> {
  if (run.trajectoryPath === null) return undefined;
  const text = await readFile(run.trajectoryPath, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = safeParseTrajectory(text);
  // A file that is not a trajectory is served as it is, as before.
  if (!parsed.ok) return text;
  return parsed.value.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/**
 * A run id that names a file in the directory and nothing else: the characters a trajectory
 * file's name keeps, no separator, no leading dot (so never `..`), of a bounded length.
 */
const PLAIN_RUN_ID = /^[A-Za-z0-9][\w.-]{0,199}$/;

/** `<dir>/<id>.jsonl` expanded, only when it is a trajectory: the directory may hold other files. */
async function earlierRunFile(dir: string, id: string): Promise<string | undefined> {
  if (!PLAIN_RUN_ID.test(id)) return undefined;
  const text = await readFile(join(dir, `${id}.jsonl`), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = safeParseTrajectory(text);
  if (!parsed.ok) return undefined;
  return parsed.value.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/** The delegated runs of one session, as MCP resources `rlm://runs/{id}` (their trajectories). */
export class RunRecords {
  readonly #runs = new Map<string, RLMChatCompletion>();
  readonly #read: (run: RLMChatCompletion) => Promise<string | undefined>;
  readonly #earlierRunsDir: string | undefined;

  /** `earlierRunsDir`: where runs of earlier sessions are read by id (`<dir>/<id>.jsonl`). */
  constructor(
    read: ((run: RLMChatCompletion) => Promise<string | undefined>) | undefined,
    earlierRunsDir?: string,
  ) {
    this.#read = read ?? trajectoryFile;
    this.#earlierRunsDir = earlierRunsDir;
  }

  add(run: RLMChatCompletion): void {
    this.#runs.set(run.runId, run);
    for (const id of this.#runs.keys()) {
      if (this.#runs.size <= MAX_LISTED_RUNS) break;
      this.#runs.delete(id);
    }
  }

  list(): Resource[] {
    return [...this.#runs.values()].map((run) => ({
      uri: `${URI_PREFIX}${run.runId}`,
      name: `run ${run.runId}`,
      description: `${run.status}: ${run.query.slice(0, 200)}`,
      mimeType: 'application/x-ndjson',
    }));
  }

  template(): ResourceTemplate {
    return {
      uriTemplate: `${URI_PREFIX}{id}`,
      name: 'run',
      description: "A run's trajectory (JSONL, one record a line; `rlm trace` reads it).",
      mimeType: 'application/x-ndjson',
    };
  }

  /**
   * @throws RlmError `server.not_found` for a run without a trajectory, or one this session did
   *   not make and the directory of earlier runs (when given) does not hold
   */
  async read(uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
    const id = uri.startsWith(URI_PREFIX) ? uri.slice(URI_PREFIX.length) : '';
    const run = this.#runs.get(id);
    const text =
      run !== undefined
        ? await this.#read(run)
        : this.#earlierRunsDir === undefined
          ? undefined
          : await earlierRunFile(this.#earlierRunsDir, id);
    if (text === undefined) {
      throw new RlmError({
        code: 'server.not_found',
        message: `There is no run trajectory at ${uri}; list the resources for the runs of this session${this.#earlierRunsDir === undefined ? '' : ', or give the id of a run recorded in the trajectory directory'}.`,
        details: { resource: 'run', id },
      });
    }
    return { uri, mimeType: 'application/x-ndjson', text };
  }
}
