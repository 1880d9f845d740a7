/**
 * @packageDocumentation `@rlm/testkit/browser`: the system Chromium, headless, for tests that open
 * a page. A subpath of its own so the main entry (used by apps at run time) stays free of it; the
 * caller passes `chromium` from its own `playwright-core`, so testkit does not depend on it.
 */

export {
  type HeadlessChromium,
  type HeadlessChromiumOptions,
  launchHeadlessChromium,
  type PersistentContextLauncher,
  SYSTEM_CHROMIUM,
  systemChromiumOrWarn,
} from './launch-headless-chromium.js';
