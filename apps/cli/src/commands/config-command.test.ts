import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

interface ConfigJson {
  config: Record<string, unknown>;
  sources: Record<string, string>;
  files: string[];
}

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

async function configJson(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<ConfigJson> {
  const result = await runCliInProcess(['config', '--json', ...args], {
    cwd: sandbox.dir,
    env: { ...sandbox.env, ...env },
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ConfigJson;
}

function writeUserConfig(text: string): string {
  const dir = join(sandbox.env['XDG_CONFIG_HOME'] ?? '', 'rlm');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rlm.config.toml'), text);
  return join(dir, 'rlm.config.toml');
}

describe('rlm config', () => {
  it('reports defaults when nothing is configured', async () => {
    const { config, sources, files } = await configJson();
    expect(config['maxDepth']).toBe(1);
    expect(sources['maxDepth']).toBe('default');
    expect(files).toEqual([]);
  });

  it('layers user file < project file < env < flags and names each source', async () => {
    const userFile = writeUserConfig('maxDepth = 2\nmaxIterations = 5\nmodel = "openai/gpt-4.1"\n');
    writeFileSync(
      join(sandbox.dir, 'rlm.config.json'),
      JSON.stringify({ maxDepth: 3, maxIterations: 6 }),
    );
    const { config, sources, files } = await configJson(['--max-iterations', '9'], {
      RLM_MAX_DEPTH: '4',
    });
    expect(files).toEqual([userFile, join(sandbox.dir, 'rlm.config.json')]);
    expect(config).toMatchObject({ model: 'openai/gpt-4.1', maxDepth: 4, maxIterations: 9 });
    expect(sources).toMatchObject({
      model: userFile,
      maxDepth: 'env RLM_MAX_DEPTH',
      maxIterations: 'flag --max-iterations',
    });
  });

  it('finds the project file in a parent directory and resolves its paths from there', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.toml'), 'drivers = ["drivers/style.md"]\n');
    mkdirSync(join(sandbox.dir, 'sub'));
    const result = await runCliInProcess(['config', '--json'], {
      cwd: join(sandbox.dir, 'sub'),
      env: sandbox.env,
    });
    const { config } = JSON.parse(result.stdout) as ConfigJson;
    expect(config['drivers']).toEqual([join(sandbox.dir, 'drivers/style.md')]);
  });

  it('reads --config FILE instead of the project file', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.json'), JSON.stringify({ maxDepth: 3 }));
    writeFileSync(join(sandbox.dir, 'ci.toml'), 'maxIterations = 4\n');
    const { config, sources, files } = await configJson(['--config', 'ci.toml']);
    expect(files).toEqual([join(sandbox.dir, 'ci.toml')]);
    expect(config).toMatchObject({ maxDepth: 1, maxIterations: 4 });
    expect(sources['maxIterations']).toBe(join(sandbox.dir, 'ci.toml'));
  });

  it('prints a table with the source of every value', async () => {
    const result = await runCliInProcess(['config', '--mode', 'coordinator'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^mode\s+coordinator\s+flag --mode$/m);
    // Coordinator mode needs children with a REPL: a depth nobody set is raised, and says why.
    expect(result.stdout).toMatch(/^maxDepth\s+2\s+default for --mode coordinator$/m);
  });

  it('shows the default run store and sub-model as what they are, not as a dash', async () => {
    const result = await runCliInProcess(['config'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(0);
    const runs = join(sandbox.env['XDG_DATA_HOME'] ?? '', 'rlm', 'runs.db');
    expect(result.stdout).toContain(`runStore              ${runs} (data dir)`);
    expect(result.stdout).toMatch(/^subModel\s+the root model\s+default$/m);
  });
});

describe('configuration errors', () => {
  it('names the file and the unknown key, with exit code 2', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.toml'), 'maxDepht = 2\n');
    const result = await runCliInProcess(['config'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(join(sandbox.dir, 'rlm.config.toml'));
    expect(result.stderr).toContain('maxDepht');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('suggests the key a typo or another spelling meant', async () => {
    writeFileSync(
      join(sandbox.dir, 'rlm.config.json'),
      JSON.stringify({ maxDepht: 2, max_iterations: 3, banana: 1 }),
    );
    const result = await runCliInProcess(['config'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `rlm: Invalid configuration in ${join(sandbox.dir, 'rlm.config.json')}: unknown key "maxDepht" (did you mean maxDepth?); unknown key "max_iterations" (did you mean maxIterations?); unknown key "banana" (the keys are in the Configuration table of the @rlm/cli README).\n`,
    );
  });

  it('names the file and key of a wrongly typed value', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.json'), '{ "maxIterations": "many" }');
    const result = await runCliInProcess(['config'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/rlm\.config\.json: maxIterations: .*number/);
  });

  it('names the file of a TOML syntax error', async () => {
    writeFileSync(join(sandbox.dir, 'rlm.config.toml'), 'maxDepth = = 2\n');
    const result = await runCliInProcess(['config'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Config file ${join(sandbox.dir, 'rlm.config.toml')} is not valid TOML`,
    );
  });

  it('names the environment variable with a bad value', async () => {
    const result = await runCliInProcess(['config'], {
      cwd: sandbox.dir,
      env: { ...sandbox.env, RLM_MAX_DEPTH: 'deep' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('RLM_MAX_DEPTH');
  });

  it('names the flag with a bad value', async () => {
    const result = await runCliInProcess(['config', '--max-depth', '0'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-depth');
  });
});
