import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

/** Runs the generated bash function for a partial command line and returns its suggestions. */
function complete(words: string[]): string {
  const script = [
    `source <("${process.execPath}" "${BIN_PATH}" completion bash)`,
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_rlm',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this is bash, not a template.
    'echo "${COMPREPLY[@]}"',
  ].join('\n');
  return execFileSync('bash', ['-c', script], { cwd: sandbox.dir, encoding: 'utf8' }).trim();
}

describe('rlm completion', () => {
  it('completes commands, sub-commands and each command’s options in bash', () => {
    expect(complete(['rlm', 'tr'])).toBe('trace');
    expect(complete(['rlm', 'run', '--max-c'])).toBe(
      '--max-cost --max-consecutive-errors --max-context-bytes',
    );
    expect(complete(['rlm', 'prompts', 's'])).toBe('show');
    expect(complete(['rlm', 'trace', '--h'])).toBe('--html');
  });

  it('completes eval with run’s spellings, leaves out the deprecated ones, and knows compare', () => {
    expect(complete(['rlm', 'eval', '--max-c'])).toBe('--max-cost');
    expect(complete(['rlm', 'eval', '--dri'])).toBe('--driver');
    expect(complete(['rlm', 'eval', '--prompt'])).toBe('');
    expect(complete(['rlm', 'eval', 'c'])).toBe('compare');
    expect(complete(['rlm', 'eval', 'compare', '--'])).toBe('--json');
  });

  it('completes the values of options with a fixed set', () => {
    expect(complete(['rlm', 'run', '--progress', ''])).toBe('tree plain none');
    expect(complete(['rlm', 'resume', '--mode', 'c'])).toBe('coordinator');
    expect(complete(['rlm', 'eval', '--benchmark', 'p'])).toBe('pairs');
    expect(complete(['rlm', 'eval', '--driver', 'verify'])).toBe('verify-before-final');
  });

  it('prints a zsh script that loads bash completion emulation', async () => {
    const result = await runCliInProcess(['completion', 'zsh'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^autoload -U \+X bashcompinit && bashcompinit\n/);
    expect(result.stdout).toContain('complete -o filenames -F _rlm rlm');
  });

  it('refuses an unknown shell with exit 2', async () => {
    const result = await runCliInProcess(['completion', 'tcsh'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result).toMatchObject({
      code: 2,
      stderr: 'rlm: Unknown shell tcsh; use bash or zsh.\n',
    });
  });
});
