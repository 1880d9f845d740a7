import {
  listLayers,
  MAX_STATIC_PROMPT_CHARS,
  MUTABLE_LAYER_IDS,
  measureStaticPrompt,
} from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';
import { Hono } from 'hono';
import { loadLastTurn } from '../agent-last-turn.js';
import {
  agentMessageRequestSchema,
  createAgentRequestSchema,
  identityTagUpdateRequestSchema,
  layerAuthor,
  layerRollbackRequestSchema,
  layerUpdateRequestSchema,
  requestMessages,
} from '../agent-record.js';
import { activeSkills, agentSkills, skillUpdateRequestSchema } from '../agent-skills.js';
import { checkWithSkills } from '../agent-turns.js';
import { requireAdmin } from '../api-key-auth.js';
import type { AppEnv } from '../app-env.js';
import { readJsonBody } from '../read-json-body.js';
import { resolveProfile } from '../resolve-profile.js';
import type { ServerServices } from '../server-services.js';

/** `/v1/agents`: long-lived agents with layered prompts, per-sender conversations and memory. */
export function agentsRoutes(services: ServerServices): Hono<AppEnv> {
  const { config, store, agents, agentTurns } = services;
  const app = new Hono<AppEnv>();

  app.post('/', async (c) => {
    const body = await readJsonBody(c, createAgentRequestSchema, 'agent');
    const { name } = resolveProfile(config, body.profile);
    const agent = await agents.create({
      owner: c.get('principal').keyId,
      identityTag: body.identityTag ?? null,
      profile: name,
    });
    return c.json(agent, 201, { location: `/v1/agents/${agent.id}` });
  });

  app.get('/', async (c) => c.json({ data: await agents.list(c.get('principal')) }));

  app.get('/:id', async (c) => c.json(await agents.owned(c.get('principal'), c.req.param('id'))));

  app.post('/:id/messages', async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const request = await readJsonBody(c, agentMessageRequestSchema, 'agent message');
    const result = await agentTurns.run(principal, agent, requestMessages(request));
    const sender = request.messages === undefined ? { sender: request.sender } : {};
    return c.json({ agentId: agent.id, ...sender, ...result });
  });

  app.get('/:id/conversations', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const senders = await store.forAgent(agent.id).conversations.listSenders();
    return c.json({
      data: senders.map((sender) => ({
        ...sender,
        lastActivityAt: new Date(sender.lastActivityAt).toISOString(),
      })),
    });
  });

  app.get('/:id/conversations/:sender', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const exchanges = await store.forAgent(agent.id).conversations.get(c.req.param('sender'));
    return c.json({
      sender: c.req.param('sender'),
      data: exchanges.map((exchange) => ({ ...exchange, at: new Date(exchange.at).toISOString() })),
    });
  });

  app.get('/:id/prompt-layers', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const memory = store.forAgent(agent.id);
    const current = await memory.promptLayers.current();
    const byId = new Map(current.map((layer) => [layer.layerId as number, layer]));
    const layers = listLayers({
      mutable: Object.fromEntries(current.map((layer) => [layer.layerId, layer.content])),
      identityTag: agent.identityTag ?? undefined,
      skills: await activeSkills(memory, agent),
    });
    const withHistory = c.req.query('history') === '1' || c.req.query('history') === 'true';
    const data = await Promise.all(
      layers.map(async (layer) => {
        const stored = byId.get(layer.id);
        return {
          id: layer.id,
          title: layer.title,
          mutability: layer.mutability,
          text: layer.text,
          version: stored?.version ?? null,
          updatedBy: stored?.by ?? null,
          updatedAt: stored === undefined ? null : new Date(stored.at).toISOString(),
          ...(withHistory && stored !== undefined
            ? { history: await memory.promptLayers.history(layer.id) }
            : {}),
        };
      }),
    );
    return c.json({ data });
  });

  app.get('/:id/prompt-layers/:layerId/history', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const layerId = parseLayerId(c.req.param('layerId'));
    return c.json({ data: await store.forAgent(agent.id).promptLayers.history(layerId) });
  });

  app.put('/:id/prompt-layers/:layerId', requireAdmin, async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const layerId = parseLayerId(c.req.param('layerId'));
    const { content } = await readJsonBody(c, layerUpdateRequestSchema, 'layer update');
    const memory = store.forAgent(agent.id);
    await checkWithSkills(memory, agent, { layerId, content });
    const version = await memory.promptLayers.update(layerId, content, {
      by: layerAuthor({ admin: principal.keyId }),
    });
    return c.json(version);
  });

  app.post('/:id/prompt-layers/:layerId/rollback', requireAdmin, async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const layerId = parseLayerId(c.req.param('layerId'));
    const { version } = await readJsonBody(c, layerRollbackRequestSchema, 'layer rollback');
    const restored = await store
      .forAgent(agent.id)
      .promptLayers.rollback(layerId, version, { by: layerAuthor({ admin: principal.keyId }) });
    return c.json(restored);
  });

  app.get('/:id/skills', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    return c.json({ data: await agentSkills(store.forAgent(agent.id), agent).list() });
  });

  app.get('/:id/skills/:name/history', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const skills = agentSkills(store.forAgent(agent.id), agent);
    return c.json({ data: await skills.history(c.req.param('name')) });
  });

  app.put('/:id/skills/:name', requireAdmin, async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const { description } = await readJsonBody(c, skillUpdateRequestSchema, 'skill');
    const skills = agentSkills(store.forAgent(agent.id), agent);
    const by = layerAuthor({ admin: principal.keyId });
    return c.json(await skills.put(c.req.param('name'), description, by));
  });

  app.post('/:id/skills/:name/rollback', requireAdmin, async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const { version } = await readJsonBody(c, layerRollbackRequestSchema, 'skill rollback');
    const skills = agentSkills(store.forAgent(agent.id), agent);
    const by = layerAuthor({ admin: principal.keyId });
    return c.json(await skills.rollback(c.req.param('name'), version, by));
  });

  app.delete('/:id/skills/:name', requireAdmin, async (c) => {
    const principal = c.get('principal');
    const agent = await agents.owned(principal, c.req.param('id'));
    const skills = agentSkills(store.forAgent(agent.id), agent);
    await skills.remove(c.req.param('name'), layerAuthor({ admin: principal.keyId }));
    return c.body(null, 204);
  });

  app.get('/:id/last-turn', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const last = await loadLastTurn(store.forAgent(agent.id));
    if (last === undefined) {
      throw new RlmError({
        code: 'server.not_found',
        message: `Agent ${agent.id} has had no turn yet`,
        details: { resource: 'last-turn', id: agent.id },
      });
    }
    return c.json(last);
  });

  app.put('/:id/identity-tag', requireAdmin, async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    const { identityTag } = await readJsonBody(c, identityTagUpdateRequestSchema, 'identity tag');
    const current = await store.forAgent(agent.id).promptLayers.current();
    const length = measureStaticPrompt({
      mutable: Object.fromEntries(current.map((layer) => [layer.layerId, layer.content])),
      identityTag: identityTag ?? undefined,
      skills: await activeSkills(store.forAgent(agent.id), agent),
    });
    if (length > MAX_STATIC_PROMPT_CHARS) {
      throw new RlmError({
        code: 'prompts.prompt_too_long',
        message: `identityTag: with this tag the layered prompt would have ${length} characters without layer 10; the maximum is ${MAX_STATIC_PROMPT_CHARS}`,
        details: { length, max: MAX_STATIC_PROMPT_CHARS },
      });
    }
    return c.json(await agents.setIdentityTag(agent, identityTag));
  });

  app.delete('/:id', async (c) => {
    const agent = await agents.owned(c.get('principal'), c.req.param('id'));
    await agentTurns.remove(agent);
    return c.body(null, 204);
  });

  return app;
}

function parseLayerId(raw: string): number {
  const layerId = Number(raw);
  if (!Number.isInteger(layerId) || layerId < 0 || layerId > 10) {
    throw new RlmError({
      code: 'protocol.invalid_message',
      message: `layerId: expected an integer 0–10 (mutable: ${MUTABLE_LAYER_IDS.join(', ')}), got "${raw}"`,
      details: { issues: ['layerId: expected an integer 0–10'] },
    });
  }
  return layerId;
}
