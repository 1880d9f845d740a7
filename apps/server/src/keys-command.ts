import { z } from 'zod';
import { type ApiKeyStore, apiKeyRoleSchema, generateApiKey } from './api-key-store.js';

/** Where a command writes; injectable so tests read the output. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const createArgsSchema = z.object({
  name: z.string({ error: '--name <name> is required' }).min(1, '--name <name> is required'),
  role: apiKeyRoleSchema.default('user'),
});

const CREATE_USAGE =
  'usage: rlm-server keys create --name <name> [--role admin|user]  (the name labels the key in `keys list`, e.g. --name ci)';

/**
 * `rlm-server keys create --name <name> [--role admin|user]`, `keys list`, `keys revoke <id>`.
 * Returns the process exit code. The token is printed once, at creation; only its hash is stored.
 */
export async function runKeysCommand(
  args: readonly string[],
  { keys, io, now = () => new Date() }: { keys: ApiKeyStore; io: CommandIo; now?: () => Date },
): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const parsed = createArgsSchema.safeParse(flags(rest));
    if (!parsed.success) {
      io.stderr(
        `keys create: ${parsed.error.issues.map(describeFlagIssue).join('; ')}\n${CREATE_USAGE}\n`,
      );
      return 2;
    }
    const { token, record } = generateApiKey({ ...parsed.data, now: now() });
    await keys.add(record);
    io.stdout(
      `${JSON.stringify({ id: record.id, name: record.name, role: record.role, key: token })}\n`,
    );
    io.stderr('Store this key now: it is not shown again (only its SHA-256 hash is kept).\n');
    return 0;
  }
  if (action === 'list') {
    for (const { hash: _hash, ...record } of await keys.list())
      io.stdout(`${JSON.stringify(record)}\n`);
    return 0;
  }
  if (action === 'revoke') {
    const id = rest[0];
    if (id === undefined) {
      io.stderr('keys revoke: expected a key id (see `rlm-server keys list`)\n');
      return 2;
    }
    if (!(await keys.revoke(id, now()))) {
      io.stderr(`keys revoke: no key with id ${id}\n`);
      return 1;
    }
    io.stdout(`${JSON.stringify({ id, revoked: true })}\n`);
    return 0;
  }
  io.stderr(
    'usage: rlm-server keys create --name <name> [--role admin|user] | keys list | keys revoke <id>\n',
  );
  return 2;
}

/** A flag's problem in the command's own words (zod's wording names types, not flags). */
function describeFlagIssue(issue: z.core.$ZodIssue): string {
  const flag = issue.path[0];
  if (flag === 'role') return '--role must be admin or user';
  if (flag === 'name') return '--name <name> is required';
  return issue.message;
}

function flags(args: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('--')) continue;
    const [key, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    result[key] = inline ?? args[index + 1] ?? '';
    if (inline === undefined) index += 1;
  }
  return result;
}
