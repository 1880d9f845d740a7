import { describe, expect, it } from 'vitest';
import { hostToolName, hostToolNames } from './tool-names.js';

describe('hostToolName', () => {
  it('turns characters an identifier cannot hold into _ and keeps a leading digit out', () => {
    expect(hostToolName('word-count')).toBe('word_count');
    expect(hostToolName('files.read', 'fs_')).toBe('fs_files_read');
    expect(hostToolName('3d-render')).toBe('_3d_render');
  });
});

describe('hostToolNames', () => {
  it('refuses two tools that get one name, and reserved names, suggesting a prefix', () => {
    expect(() => hostToolNames(['a-b', 'a.b'], { server: 'srv' })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: { source: 'MCP server srv', issues: [expect.stringContaining('both become a_b')] },
      }),
    );
    expect(() => hostToolNames(['llm_query'], { server: 'srv' })).toThrow(/reserved name/);
    expect(hostToolNames(['llm_query'], { server: 'srv', prefix: 'mcp_' }).get('llm_query')).toBe(
      'mcp_llm_query',
    );
  });
});
