import { randomBytes } from 'node:crypto';
import type { Scratchpad } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import { type AgentRecord, agentRecordSchema } from './agent-record.js';
import type { Principal } from './api-key-store.js';

const ENTRY_TYPE = 'server-agent';

/** Where agents are registered: entries `agent:<id>` in the server's own scratchpad namespace. */
export interface AgentRegistry {
  create(input: {
    owner: string;
    identityTag: string | null;
    profile: string;
  }): Promise<AgentRecord>;
  /** @throws RlmError `server.not_found` for a missing agent or one owned by another key */
  owned(principal: Principal, agentId: string): Promise<AgentRecord>;
  list(principal: Principal): Promise<AgentRecord[]>;
  /** Replaces the identity tag (`null`: the default tag) and returns the updated record. */
  setIdentityTag(agent: AgentRecord, identityTag: string | null): Promise<AgentRecord>;
  /** Removes the agent's registration. */
  remove(agent: AgentRecord): Promise<void>;
}

export function createAgentRegistry(scratchpad: Scratchpad): AgentRegistry {
  return {
    async create({ owner, identityTag, profile }) {
      const record: AgentRecord = {
        id: `agt_${randomBytes(8).toString('hex')}`,
        owner,
        identityTag,
        profile,
        createdAt: new Date().toISOString(),
      };
      await scratchpad.set(`agent:${record.id}`, {
        type: ENTRY_TYPE,
        summary: `agent ${record.id} of ${owner}`,
        raw: record,
      });
      return record;
    },
    async owned(principal, agentId) {
      const entry = await scratchpad.get(`agent:${agentId}`);
      const record = entry === undefined ? undefined : agentRecordSchema.safeParse(entry.raw);
      if (
        record === undefined ||
        !record.success ||
        (principal.role !== 'admin' && record.data.owner !== principal.keyId)
      ) {
        throw new RlmError({
          code: 'server.not_found',
          message: `No agent with id ${agentId}`,
          details: { resource: 'agent', id: agentId },
        });
      }
      return record.data;
    },
    async setIdentityTag(agent, identityTag) {
      const record: AgentRecord = { ...agent, identityTag };
      await scratchpad.set(`agent:${record.id}`, {
        type: ENTRY_TYPE,
        summary: `agent ${record.id} of ${record.owner}`,
        raw: record,
      });
      return record;
    },
    async remove(agent) {
      await scratchpad.delete(`agent:${agent.id}`);
    },
    async list(principal) {
      const entries = await scratchpad.list({ prefix: 'agent:', type: ENTRY_TYPE });
      return entries
        .map((entry) => agentRecordSchema.safeParse(entry.raw))
        .flatMap((parsed) => (parsed.success ? [parsed.data] : []))
        .filter((agent) => principal.role === 'admin' || agent.owner === principal.keyId);
    },
  };
}
