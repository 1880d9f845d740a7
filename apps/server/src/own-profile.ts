import type { ModelProfile, ServerConfig } from './server-config.js';

/**
 * The profile named `name`, looked up among the configured profiles' own keys only, so
 * `constructor`, `toString` or `__proto__` never resolve to something inherited from
 * `Object.prototype`. `undefined` when there is no such profile.
 */
export function ownProfile(config: ServerConfig, name: string): ModelProfile | undefined {
  return Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
}

/** The configured profile names, for error messages that list the valid ones. */
export function profileNames(config: ServerConfig): string {
  return Object.keys(config.profiles).join(', ');
}
