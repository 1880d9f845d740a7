import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import type { AppEnv } from '../app-env.js';
import { ownProfile, profileNames } from '../own-profile.js';
import type { ServerServices } from '../server-services.js';

/**
 * `GET /v1/models` in OpenAI's shape: the configured profiles are this server's "models" (what
 * `model` in a chat completion selects). Clients that list models before chatting work unchanged.
 */
export function modelsRoutes({ config }: ServerServices): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const created = Math.floor(Date.now() / 1000);
  const model = (id: string) => ({ id, object: 'model' as const, created, owned_by: 'rlm-server' });
  app.get('/', (c) => c.json({ object: 'list', data: Object.keys(config.profiles).map(model) }));
  app.get('/:id', (c) => {
    const id = c.req.param('id');
    if (ownProfile(config, id) === undefined) {
      throw new RlmError({
        code: 'server.not_found',
        message: `The model "${id}" does not exist; configured models: ${profileNames(config)}`,
        details: { resource: 'model', id },
      });
    }
    return c.json(model(id));
  });
  return app;
}
