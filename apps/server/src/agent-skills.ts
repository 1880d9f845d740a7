import type { AgentMemory } from '@rlm/memory';
import { checkSkill, type SkillSpec, validateSkill } from '@rlm/prompts';
import { RlmError } from '@rlm/protocol';
import { z } from 'zod';
import type { AgentRecord } from './agent-record.js';

const ENTRY_TYPE = 'agent-skill';

/** One saved version of a skill; `description: null` records its removal. */
export const skillVersionSchema = z.object({
  version: z.number().int().positive(),
  description: z.string().nullable(),
  /** Who wrote it (`admin:<key id>`). */
  by: z.string(),
  /** ISO 8601. */
  at: z.string(),
  /** Set when this version restored an earlier one. */
  restoredFrom: z.number().int().positive().nullable(),
});
export type SkillVersion = z.infer<typeof skillVersionSchema>;

const storedSkillSchema = z.object({ name: z.string(), versions: z.array(skillVersionSchema) });
type StoredSkill = z.infer<typeof storedSkillSchema>;

/** A skill as the API shows it: its current text and version. */
export interface SkillView {
  name: string;
  description: string;
  version: number;
  updatedBy: string;
  updatedAt: string;
}

/** `PUT /v1/agents/:id/skills/:name`. */
export const skillUpdateRequestSchema = z.object({ description: z.string() }).strict();

/**
 * An agent's skills (listed in layer 5 of its prompt), versioned like its mutable layers: every
 * write appends a version, a removal is a version too, and any earlier version can be restored as
 * a new one. Kept in the agent's own scratchpad (`skill:<name>`), so deleting the agent deletes
 * them. Every write is checked by `@rlm/prompts`' `validateSkill`, with the agent's other skills,
 * layers and identity tag, before anything is saved.
 */
export interface AgentSkills {
  /** The active skills, by name. */
  list(): Promise<SkillView[]>;
  /** @throws RlmError `server.not_found` for a skill never written */
  history(name: string): Promise<SkillVersion[]>;
  /** @throws RlmError `prompts.*` when `validateSkill` refuses the text */
  put(name: string, description: string, by: string): Promise<SkillView>;
  /** @throws RlmError `server.not_found` when the skill is not active */
  remove(name: string, by: string): Promise<void>;
  /** @throws RlmError `server.not_found` for an unknown skill or version, plus `put`'s errors */
  rollback(name: string, version: number, by: string): Promise<SkillView>;
}

export function agentSkills(memory: AgentMemory, agent: AgentRecord): AgentSkills {
  const { scratchpad } = memory;
  async function stored(name: string): Promise<StoredSkill | undefined> {
    const entry = await scratchpad.get(`skill:${name}`);
    const parsed = entry === undefined ? undefined : storedSkillSchema.safeParse(entry.raw);
    return parsed?.success === true ? parsed.data : undefined;
  }
  async function all(): Promise<StoredSkill[]> {
    const entries = await scratchpad.list({ prefix: 'skill:', type: ENTRY_TYPE });
    return entries.flatMap((entry) => {
      const parsed = storedSkillSchema.safeParse(entry.raw);
      return parsed.success ? [parsed.data] : [];
    });
  }
  async function write(
    name: string,
    change: Pick<SkillVersion, 'description' | 'by' | 'restoredFrom'>,
  ): Promise<StoredSkill> {
    const { description, by, restoredFrom } = change;
    if (description !== null) await check({ name, description });
    const skill = (await stored(name)) ?? { name, versions: [] };
    const version = (skill.versions.at(-1)?.version ?? 0) + 1;
    const next: StoredSkill = {
      name,
      versions: [
        ...skill.versions,
        { version, description, by, at: new Date().toISOString(), restoredFrom },
      ],
    };
    await scratchpad.set(`skill:${name}`, {
      type: ENTRY_TYPE,
      summary: `skill ${name} v${version}`,
      raw: next,
    });
    return next;
  }
  async function check(skill: SkillSpec): Promise<void> {
    const alone = checkSkill(skill);
    if (!alone.ok) throw alone.error;
    const others = (await all()).flatMap((each) => active(each) ?? []);
    const layers = await memory.promptLayers.current();
    const result = validateSkill(skill, {
      skills: others.map(({ name, description }) => ({ name, description })),
      layers: Object.fromEntries(layers.map((layer) => [layer.layerId, layer.content])),
      identityTag: agent.identityTag ?? undefined,
    });
    if (!result.ok) throw result.error;
  }
  return {
    async list() {
      return (await all()).flatMap((skill) => active(skill) ?? []);
    },
    async history(name) {
      const skill = await stored(name);
      if (skill === undefined) throw missing(name);
      return skill.versions;
    },
    async put(name, description, by) {
      const view = active(await write(name, { description, by, restoredFrom: null }));
      if (view === undefined) throw missing(name);
      return view;
    },
    async remove(name, by) {
      const skill = await stored(name);
      if (skill === undefined || active(skill) === undefined) throw missing(name);
      await write(name, { description: null, by, restoredFrom: null });
    },
    async rollback(name, version, by) {
      const skill = await stored(name);
      const earlier = skill?.versions.find((each) => each.version === version);
      if (earlier === undefined) throw missing(name, version);
      const view = active(
        await write(name, { description: earlier.description, by, restoredFrom: version }),
      );
      if (view === undefined) throw missing(name, version);
      return view;
    },
  };
}

/** The active skills of an agent, as layer 5 lists them. */
export async function activeSkills(memory: AgentMemory, agent: AgentRecord): Promise<SkillSpec[]> {
  return (await agentSkills(memory, agent).list()).map(({ name, description }) => ({
    name,
    description,
  }));
}

function active(skill: StoredSkill): SkillView | undefined {
  const latest = skill.versions.at(-1);
  if (latest === undefined || latest.description === null) return undefined;
  return {
    name: skill.name,
    description: latest.description,
    version: latest.version,
    updatedBy: latest.by,
    updatedAt: latest.at,
  };
}

function missing(name: string, version?: number): RlmError<'server.not_found'> {
  return new RlmError({
    code: 'server.not_found',
    message:
      version === undefined
        ? `No skill named ${name}`
        : `Skill ${name} has no version ${version} with a description`,
    details: { resource: 'skill', id: name },
  });
}
