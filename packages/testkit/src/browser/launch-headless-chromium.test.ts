import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  launchHeadlessChromium,
  type PersistentContextLauncher,
  SYSTEM_CHROMIUM,
} from './launch-headless-chromium.js';

/** A launcher that records what it was asked, standing in for playwright's `chromium`. */
function fakeLauncher(fail = false) {
  const launched: { dir: string; options: Record<string, unknown> }[] = [];
  let closed = 0;
  const launcher: PersistentContextLauncher<{ close(): Promise<void> }> = {
    async launchPersistentContext(dir, options) {
      launched.push({ dir, options });
      if (fail) throw new Error('no display');
      return {
        async close() {
          closed += 1;
        },
      };
    },
  };
  return { launcher, launched, closed: () => closed };
}

describe('launchHeadlessChromium', () => {
  it('launches the system Chromium headless in a fresh profile, removed on close', async () => {
    const fake = fakeLauncher();
    const chrome = await launchHeadlessChromium(fake.launcher, {
      viewport: { width: 800, height: 600 },
    });
    const [launch] = fake.launched;
    expect(launch?.options).toMatchObject({
      executablePath: SYSTEM_CHROMIUM,
      headless: true,
      viewport: { width: 800, height: 600 },
    });
    expect(launch?.options['args']).toEqual(
      expect.arrayContaining(['--no-sandbox', '--disable-background-networking']),
    );
    expect(existsSync(launch?.dir ?? '')).toBe(true);
    await chrome.close();
    expect(fake.closed()).toBe(1);
    expect(existsSync(launch?.dir ?? '')).toBe(false);
  });

  it('removes the profile when the launch fails', async () => {
    const fake = fakeLauncher(true);
    await expect(launchHeadlessChromium(fake.launcher)).rejects.toThrow('no display');
    expect(existsSync(fake.launched[0]?.dir ?? '')).toBe(false);
  });
});
