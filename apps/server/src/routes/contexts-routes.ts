import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { ServerServices } from '../server-services.js';

/** `/v1/contexts`: upload a large context once (streamed to disk) and reuse it by id. */
export function contextsRoutes({ config, contexts }: ServerServices): Hono<AppEnv> {
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
    const principal = c.get('principal');
    const meta = await contexts.meta(c.req.param('id'));
    if (meta === undefined || (principal.role !== 'admin' && meta.owner !== principal.keyId)) {
      throw new RlmError({
        code: 'server.not_found',
        message: `No context with id ${c.req.param('id')}`,
        details: { resource: 'context', id: c.req.param('id') },
      });
    }
    const { owner: _owner, ...rest } = meta;
    return c.json(rest);
  });

  return app;
}
