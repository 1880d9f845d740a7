import { describe, expect, it } from 'vitest';
import { describeMcpServer, parseMcpCommandLine, parseMcpServerSpec } from './mcp-server-spec.js';

describe('parseMcpCommandLine', () => {
  it('splits words like a shell, with quotes, and expands nothing', () => {
    expect(parseMcpCommandLine(`npx -y @acme/server --root "my dir" --name 'a b' $HOME`)).toEqual({
      command: 'npx',
      args: ['-y', '@acme/server', '--root', 'my dir', '--name', 'a b', '$HOME'],
    });
  });

  it('refuses shell syntax and an empty line', () => {
    expect(() => parseMcpCommandLine('server | tee log')).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
    expect(() => parseMcpCommandLine('   ')).toThrow(/expected a command/);
  });
});

describe('parseMcpServerSpec', () => {
  it('defaults args and names the bad field', () => {
    expect(parseMcpServerSpec({ command: 'node' })).toEqual({ command: 'node', args: [] });
    expect(() => parseMcpServerSpec({ command: 'node', args: 'x' })).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });
});

describe('describeMcpServer', () => {
  it('never shows headers, env values or the URL query', () => {
    const http = parseMcpServerSpec({
      url: 'https://tools.example.com/mcp?token=secret',
      headers: { authorization: 'Bearer secret' },
    });
    expect(describeMcpServer(http)).toBe('https://tools.example.com/mcp');
    const stdio = parseMcpServerSpec({ command: 'srv', args: ['-v'], env: { TOKEN: 'secret' } });
    expect(describeMcpServer(stdio)).toBe('srv -v');
  });
});
