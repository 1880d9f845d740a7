import { Hono } from 'hono';
import { requireAdmin } from '../api-key-auth.js';
import type { AppEnv } from '../app-env.js';
import type { ServerServices } from '../server-services.js';

/**
 * `/v1/cache`: the sub-call cache of profiles with a `cache` key, in the server's store (shared
 * by every replica on Postgres). Admin only: what it holds came from every caller's runs.
 */
export function cacheRoutes({ store }: ServerServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/stats', requireAdmin, async (c) => c.json(await store.callCache.stats()));
  app.delete('/', requireAdmin, async (c) => c.json({ deleted: await store.callCache.clear() }));
  return app;
}
