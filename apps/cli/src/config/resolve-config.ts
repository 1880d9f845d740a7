import { dirname, join, resolve } from 'node:path';
import { describeIssues, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import type { CliPaths } from '../cli-io.js';
import { closestKey } from './closest-key.js';
import { CONFIG_KEY_NAMES, CONFIG_KEYS, parseConfigText } from './config-keys.js';
import {
  type CliConfig,
  type ConfigKey,
  cliConfigSchema,
  DEFAULT_CONFIG,
  type PartialCliConfig,
  partialCliConfigSchema,
} from './config-schema.js';
import { withCoordinatorDepth } from './coordinator-depth.js';
import { findProjectConfigFile, loadConfigFileIn, readConfigFile } from './load-config-file.js';
import { isBuiltinDriverName } from './read-drivers.js';

/** Where a value came from: `default`, a file path, `env RLM_X` or `flag --x`. */
export type ConfigSource = string;

export interface ResolvedConfig {
  config: CliConfig;
  /** The layer each key's value came from. */
  sources: Record<ConfigKey, ConfigSource>;
  /** Config files that were read, lowest precedence first. */
  files: string[];
}

export interface ResolveConfigOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  paths: CliPaths;
  /** Values given as flags (already typed by the flag parser; text for numbers is parsed here). */
  flags: Partial<Record<ConfigKey, unknown>>;
  /** An explicit `--config FILE`, which replaces the project file lookup. */
  configPath?: string;
  /**
   * The configuration a resumed run was recorded with: above files and environment, below flags
   * (so `rlm resume` reuses the run's model and limits unless a flag overrides them).
   */
  recorded?: PartialCliConfig;
}

/** Keys whose values are paths: relative paths in a file are relative to that file. */
const PATH_KEYS = new Set<ConfigKey>(['drivers', 'toolModules', 'trajectoryDir', 'runStore']);

/**
 * Merges the configuration layers, lowest to highest: defaults, the user config file, the project
 * config file (or `--config`), `RLM_*` environment variables, a resumed run's recorded
 * configuration, flags. Each layer is validated on its own so an error names the file, variable
 * or flag it came from. Coordinator mode raises a default depth to 2 (`withCoordinatorDepth`).
 *
 * @throws RlmError `config.invalid` naming the source and key; for coordinator mode at a
 *   configured depth of 1
 */
export function resolveConfig({
  cwd,
  env,
  paths,
  flags,
  configPath,
  recorded,
}: ResolveConfigOptions): ResolvedConfig {
  const layers: ConfigLayer[] = [];
  const files: string[] = [];
  const userFile = loadConfigFileIn(paths.config);
  const projectFile =
    configPath === undefined
      ? findProjectConfigFile(cwd)
      : { path: resolve(cwd, configPath), data: readConfigFile(resolve(cwd, configPath)) };
  for (const file of [userFile, projectFile]) {
    if (file === undefined || files.includes(file.path)) continue;
    files.push(file.path);
    const values = validateLayer(file.data, file.path, (key) => key);
    const path = file.path;
    layers.push({ values: resolvePaths(values, dirname(path)), sourceOf: () => path });
  }
  layers.push(envLayer(env, cwd));
  if (recorded !== undefined) layers.push({ values: recorded, sourceOf: () => 'the recorded run' });
  layers.push(flagLayer(flags, cwd));

  const merged: Record<string, unknown> = { ...DEFAULT_CONFIG };
  const sources = Object.fromEntries(CONFIG_KEY_NAMES.map((key) => [key, 'default'])) as Record<
    ConfigKey,
    ConfigSource
  >;
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer.values)) {
      if (value === undefined) continue;
      merged[key] = value;
      sources[key as ConfigKey] = layer.sourceOf(key as ConfigKey);
    }
  }
  const config = cliConfigSchema.parse(merged);
  return withCoordinatorDepth({ config, sources, files });
}

/** The default trajectory directory under the user's data dir. */
export function defaultTrajectoryDir(paths: CliPaths): string {
  return join(paths.data, 'trajectories');
}

/** The default run store (runs and checkpoints, for `rlm resume`), next to the trajectories. */
export function defaultRunStorePath(paths: CliPaths): string {
  return join(paths.data, 'runs.db');
}

interface ConfigLayer {
  values: PartialCliConfig;
  sourceOf(key: ConfigKey): ConfigSource;
}

function envLayer(env: Readonly<Record<string, string | undefined>>, cwd: string): ConfigLayer {
  const raw: Record<string, unknown> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const text = env[CONFIG_KEYS[key].env];
    if (text === undefined || text === '') continue;
    raw[key] = parseConfigText(key, text);
  }
  const nameOf = (key: string) =>
    `environment variable ${CONFIG_KEYS[key as ConfigKey]?.env ?? key}`;
  return {
    values: resolvePaths(validateLayer(raw, 'the environment', nameOf), cwd),
    sourceOf: (key) => `env ${CONFIG_KEYS[key].env}`,
  };
}

function flagLayer(flags: Partial<Record<ConfigKey, unknown>>, cwd: string): ConfigLayer {
  const raw: Record<string, unknown> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const value = flags[key];
    if (value === undefined) continue;
    raw[key] = typeof value === 'string' ? parseConfigText(key, value) : value;
  }
  const nameOf = (key: string) => CONFIG_KEYS[key as ConfigKey]?.flag ?? key;
  return {
    values: resolvePaths(validateLayer(raw, 'the command line', nameOf), cwd),
    // A boolean turned off was written as `--no-<name>`; say so.
    sourceOf: (key) =>
      raw[key] === false
        ? `flag ${CONFIG_KEYS[key].flag.replace(/^--/, '--no-')}`
        : `flag ${CONFIG_KEYS[key].flag}`,
  };
}

function validateLayer(
  data: unknown,
  source: string,
  nameOf: (key: string) => string,
): PartialCliConfig {
  const result = partialCliConfigSchema.safeParse(data);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0) {
      return issue.keys.map((key) => unknownKey(key, nameOf));
    }
    const [described = ''] = describeIssues(new z.ZodError([issue]));
    const [key = '', ...rest] = described.split(':');
    const base = key.split('.')[0] ?? key;
    if (base === '(root)') return [rest.join(':').trim()];
    return [`${nameOf(base)}${key.slice(base.length)}:${rest.join(':')}`];
  });
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid configuration in ${source}: ${issues.join('; ')}.`,
    details: { source, issues },
    cause: result.error,
  });
}

/** `unknown key "maxDepht" (did you mean maxDepth?)`: a typo in a file is otherwise a hunt. */
function unknownKey(key: string, nameOf: (key: string) => string): string {
  const meant = closestKey(key, CONFIG_KEY_NAMES);
  return meant === undefined
    ? `unknown key "${key}" (the keys are in the Configuration table of the @rlm/cli README)`
    : `unknown key "${key}" (did you mean ${nameOf(meant)}?)`;
}

function resolvePaths(values: PartialCliConfig, base: string): PartialCliConfig {
  const out: PartialCliConfig = { ...values };
  for (const key of PATH_KEYS) {
    if (key === 'drivers' && out.drivers !== undefined) {
      // Built-in driver names are not paths; everything else is relative to where it was written.
      out.drivers = out.drivers.map((driver) =>
        isBuiltinDriverName(driver) ? driver : resolve(base, driver),
      );
    }
    if (key === 'toolModules' && out.toolModules !== undefined) {
      out.toolModules = out.toolModules.map((module) => resolve(base, module));
    }
    if (key === 'trajectoryDir' && out.trajectoryDir !== undefined) {
      out.trajectoryDir = resolve(base, out.trajectoryDir);
    }
    if (key === 'runStore' && out.runStore !== undefined) {
      out.runStore = resolve(base, out.runStore);
    }
  }
  return out;
}
