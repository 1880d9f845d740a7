import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from './app-env.js';

/**
 * One structured log line per request: id, method, path (never the query string), status,
 * duration and the key id. Bodies, headers and contexts are never logged.
 */
export function requestLogger(logger: Logger): MiddlewareHandler<AppEnv> {
  return async function requestLoggerMiddleware(c, next) {
    const started = performance.now();
    const log = logger.child({ requestId: c.get('requestId') });
    c.set('log', log);
    await next();
    log.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        keyId: c.get('principal')?.keyId,
      },
      'request',
    );
  };
}
