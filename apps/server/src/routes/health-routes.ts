import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { ServerServices } from '../server-services.js';

/** `/healthz` (process alive), `/readyz` (store reachable, accepting runs), `/metrics`. */
export function healthRoutes(services: ServerServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const checks = await services.readiness();
    const ready = Object.values(checks).every((check) => check.ok);
    return c.json({ status: ready ? 'ready' : 'not_ready', checks }, ready ? 200 : 503);
  });
  app.get('/metrics', (c) =>
    c.body(services.metrics.render(), 200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
    }),
  );
  return app;
}
