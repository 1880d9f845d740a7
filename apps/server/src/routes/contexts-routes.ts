import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { RunStore } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import type { Principal } from '../api-key-store.js';
import type { AppEnv } from '../app-env.js';
import type { ContextMeta } from '../context-store.js';
import { runMetaSchema } from '../run-meta.js';
import type { ServerServices } from '../server-services.js';
import { unfinishedRuns } from '../unfinished-runs.js';

/** `/v1/contexts`: upload a large context once (streamed to disk) and reuse it by id. */
export function contextsRoutes({ config, contexts, store }: ServerServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limitBytes = config.limits.contextBytes;

  app.post('/', async (c) => {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (declared > limitBytes) {
      throw new RlmError({
        code: 'server.payload_too_large',
        message: `The context exceeds the limit of ${limitBytes} bytes`,
        details: { what: 'context', limitBytes },
      });
    }
    const type = (c.req.header('content-type') ?? 'text/plain').toLowerCase();
    const format = type.startsWith('application/json') ? 'json' : 'text';
    const body = c.req.raw.body;
    const chunks: AsyncIterable<Uint8Array> | Uint8Array[] =
      body === null ? [] : Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
    const meta = await contexts.save(chunks, {
      owner: c.get('principal').keyId,
      format,
      limitBytes,
    });
    return c.json(
      {
        id: meta.id,
        format: meta.format,
        bytes: meta.bytes,
        sha256: meta.sha256,
        createdAt: meta.createdAt,
      },
      201,
    );
  });

  app.get('/:id', async (c) => {
    const { owner: _owner, ...rest } = await owned(c.get('principal'), c.req.param('id'));
    return c.json(rest);
  });

  // A context a queued or running run still reads is refused: the run would fail, or could not
  // resume after a restart. Runs that ended keep their record; their context is simply gone.
  app.delete('/:id', async (c) => {
    const meta = await owned(c.get('principal'), c.req.param('id'));
    const users = await runsUsingContext(store.runs, meta.id);
    if (users.length > 0) {
      throw new RlmError({
        code: 'server.conflict',
        message: `Context ${meta.id} is used by ${users.length} queued or running run(s) (${users.slice(0, 3).join(', ')}); delete it once they have ended`,
        details: { reason: 'context in use' },
      });
    }
    await contexts.remove(meta.id);
    return c.body(null, 204);
  });

  /** The context, if the caller may see it. @throws RlmError `server.not_found` */
  async function owned(principal: Principal, id: string): Promise<ContextMeta> {
    const meta = await contexts.meta(id);
    if (meta === undefined || (principal.role !== 'admin' && meta.owner !== principal.keyId)) {
      throw new RlmError({
        code: 'server.not_found',
        message: `No context with id ${id}`,
        details: { resource: 'context', id },
      });
    }
    return meta;
  }

  return app;
}

/** Ids of the queued or running runs that read context `contextId`. */
async function runsUsingContext(store: RunStore, contextId: string): Promise<string[]> {
  return (await unfinishedRuns(store))
    .filter((record) => runMetaSchema.safeParse(record.config).data?.contextId === contextId)
    .map((record) => record.id);
}
