import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { apiKeyAuth } from './api-key-auth.js';
import type { AppEnv } from './app-env.js';
import { handleError } from './handle-error.js';
import { keyRateLimit } from './key-rate-limit.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { payloadTooLarge } from './payload-too-large.js';
import { trackRequests } from './request-activity.js';
import { requestLogger } from './request-logger.js';
import { agentsRoutes } from './routes/agents-routes.js';
import { cacheRoutes } from './routes/cache-routes.js';
import { chatCompletionsRoutes } from './routes/chat-completions-routes.js';
import { contextsRoutes } from './routes/contexts-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { mcpRoutes } from './routes/mcp-routes.js';
import { modelsRoutes } from './routes/models-routes.js';
import { responsesRoutes } from './routes/responses-routes.js';
import { runViewRoutes } from './routes/run-view-routes.js';
import { runsRoutes } from './routes/runs-routes.js';
import type { ServerServices } from './server-services.js';
import { uiRoutes } from './ui/ui-routes.js';

/** Routes whose bodies may carry a whole context, so they get the context limit instead. */
const LARGE_BODY_ROUTES = new Set([
  '/v1/runs',
  '/v1/contexts',
  '/v1/chat/completions',
  '/v1/responses',
  '/mcp',
]);

/**
 * Builds the Hono app over already-created services. It reads no environment and opens no
 * socket: `main.ts` does that, tests call `app.request()` or serve it on 127.0.0.1.
 *
 * @example
 * const services = createServerServices({ config, store, keys, engine, logger });
 * serve({ fetch: createServer(services).fetch, port: 8787 });
 */
export function createServer(services: ServerServices): Hono<AppEnv> {
  const { config, logger } = services;
  const app = new Hono<AppEnv>();
  const smallBodies = bodyLimit({
    maxSize: config.limits.bodyBytes,
    onError: payloadTooLarge('request body', config.limits.bodyBytes),
  });

  app.onError(handleError);
  app.notFound((c) => {
    throw new RlmError({
      code: 'server.not_found',
      message: `No route for ${c.req.method} ${c.req.path}`,
      details: { resource: 'route', id: `${c.req.method} ${c.req.path}` },
    });
  });
  app.use('*', requestId());
  app.use('*', trackRequests(services.activity));
  app.use('*', requestLogger(logger));
  app.use('*', secureHeaders());
  app.use(
    '*',
    cors({
      origin: config.corsOrigins,
      allowHeaders: ['authorization', 'content-type', 'last-event-id'],
      exposeHeaders: ['retry-after', 'x-request-id', 'location', 'www-authenticate'],
    }),
  );
  app.use('*', async function limitBody(c, next) {
    if (LARGE_BODY_ROUTES.has(c.req.path.replace(/\/$/, ''))) return next();
    return smallBodies(c, next);
  });

  app.route('/', healthRoutes(services));
  const openApi = buildOpenApiDocument(services.version ?? '0.0.0');
  app.get('/openapi.json', (c) => c.json(openApi));
  app.route('/ui', uiRoutes());

  const auth = apiKeyAuth({
    keys: services.keys,
    failuresPerMinute: config.limits.authFailuresPerMinute,
    ...(services.now ? { now: services.now } : {}),
  });
  const rateLimit = keyRateLimit({ limiter: services.keyRateLimiter });
  app.use('/v1/*', auth);
  app.use('/v1/*', rateLimit);
  app.use('/mcp', auth);
  app.use('/mcp', rateLimit);
  app.route('/mcp', mcpRoutes(services, services.mcp));
  app.route('/v1/runs', runsRoutes(services));
  app.route('/v1/runs', runViewRoutes(services));
  app.route('/v1/contexts', contextsRoutes(services));
  app.route('/v1/chat/completions', chatCompletionsRoutes(services));
  app.route('/v1/responses', responsesRoutes(services));
  app.route('/v1/models', modelsRoutes(services));
  app.route('/v1/agents', agentsRoutes(services));
  app.route('/v1/cache', cacheRoutes(services));
  return app;
}
