import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the browser tests expect Chromium (Debian's and Ubuntu's `chromium` package). */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the system Chromium is installed. When it is not, says on stderr, loudly, that the
 * `label` tests are skipped and how to install it, so a skip is never silent.
 */
export function systemChromiumOrWarn(label: string): boolean {
  if (existsSync(SYSTEM_CHROMIUM)) return true;
  process.stderr.write(
    `\n!!! ${label} SKIPPED: ${SYSTEM_CHROMIUM} is missing. Install it with: apt-get install -y chromium !!!\n\n`,
  );
  return false;
}

/** What `launchHeadlessChromium` asks of playwright's `chromium` (so testkit needs no import of it). */
export interface PersistentContextLauncher<TContext> {
  launchPersistentContext(
    userDataDir: string,
    options: {
      executablePath: string;
      headless: boolean;
      viewport?: { width: number; height: number };
      args: string[];
    },
  ): Promise<TContext>;
}

export interface HeadlessChromiumOptions {
  /** The page size. @default playwright's (1280×720) */
  viewport?: { width: number; height: number } | undefined;
}

/** A launched browser context and the way to close it with its throwaway profile. */
export interface HeadlessChromium<TContext> {
  context: TContext;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Launches the system Chromium headless in a fresh profile, with nothing that reaches the network
 * on its own (no sync, component updates, background requests or QUIC), so a test sees only the
 * requests its pages make.
 *
 * @example
 * import { chromium } from 'playwright-core';
 * const chrome = await launchHeadlessChromium(chromium, { viewport: { width: 1280, height: 900 } });
 * const page = await chrome.context.newPage();
 * await chrome.close();
 */
export async function launchHeadlessChromium<TContext extends { close(): Promise<unknown> }>(
  chromium: PersistentContextLauncher<TContext>,
  { viewport }: HeadlessChromiumOptions = {},
): Promise<HeadlessChromium<TContext>> {
  const profileDir = await mkdtemp(join(tmpdir(), 'rlm-chromium-'));
  let context: TContext;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: SYSTEM_CHROMIUM,
      headless: true,
      ...(viewport === undefined ? {} : { viewport }),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (error) {
    await rm(profileDir, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    async close() {
      try {
        await context.close();
      } finally {
        await rm(profileDir, { recursive: true, force: true });
      }
    },
  };
}
