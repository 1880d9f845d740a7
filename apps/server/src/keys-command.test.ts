import { describe, expect, it } from 'vitest';
import { hashApiKey } from './api-key-store.js';
import { runKeysCommand } from './keys-command.js';
import { createMemoryApiKeyStore } from './memory-api-key-store.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text) },
    out,
    err,
  };
}

describe('rlm-server keys', () => {
  it('creates a key, prints it once and stores only its SHA-256', async () => {
    const keys = createMemoryApiKeyStore();
    const { io, out } = capture();
    expect(await runKeysCommand(['create', '--name', 'ops', '--role', 'admin'], { keys, io })).toBe(
      0,
    );
    const printed = JSON.parse(out.join('')) as { id: string; key: string; role: string };
    expect(printed.role).toBe('admin');
    const [stored] = await keys.list();
    expect(stored?.hash).toBe(hashApiKey(printed.key));
    expect(JSON.stringify(stored)).not.toContain(printed.key);
  });

  it('lists keys without their hashes and revokes by id', async () => {
    const keys = createMemoryApiKeyStore();
    const created = capture();
    await runKeysCommand(['create', '--name=ci'], { keys, io: created.io });
    const { id } = JSON.parse(created.out.join('')) as { id: string };
    const listed = capture();
    await runKeysCommand(['list'], { keys, io: listed.io });
    expect(listed.out.join('')).toContain('"role":"user"');
    expect(listed.out.join('')).not.toContain('hash');
    expect(await runKeysCommand(['revoke', id], { keys, io: capture().io })).toBe(0);
    expect((await keys.list())[0]?.revokedAt).not.toBeNull();
  });

  it('exits 2 with its own message naming the missing --name flag or a bad --role, and its usage', async () => {
    const missing = capture();
    expect(
      await runKeysCommand(['create'], { keys: createMemoryApiKeyStore(), io: missing.io }),
    ).toBe(2);
    const [first, usage] = missing.err.join('').split('\n');
    expect(first).toBe('keys create: --name <name> is required');
    expect(usage).toMatch(/^usage: rlm-server keys create --name <name> \[--role admin\|user\]/);
    const badRole = capture();
    expect(
      await runKeysCommand(['create', '--name', 'x', '--role', 'root'], {
        keys: createMemoryApiKeyStore(),
        io: badRole.io,
      }),
    ).toBe(2);
    expect(badRole.err.join('')).toMatch(/^keys create: --role must be admin or user\n/);
  });

  it('exits 1 when revoking an unknown id', async () => {
    const { io, err } = capture();
    expect(
      await runKeysCommand(['revoke', 'key_nope'], { keys: createMemoryApiKeyStore(), io }),
    ).toBe(1);
    expect(err.join('')).toContain('key_nope');
  });
});
