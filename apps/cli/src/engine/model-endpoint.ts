/** Where requests for a model id go, as the client will resolve it (for error messages only). */
export function modelEndpoint(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (id.startsWith('anthropic/')) return env['ANTHROPIC_BASE_URL'] || 'https://api.anthropic.com';
  if (id.startsWith('openai/')) return env['OPENAI_BASE_URL'] || 'https://api.openai.com/v1';
  if (id.startsWith('openai-compatible/')) {
    const at = id.indexOf('@');
    return at === -1 ? env['OPENAI_BASE_URL'] : id.slice(at + 1);
  }
  return undefined;
}
