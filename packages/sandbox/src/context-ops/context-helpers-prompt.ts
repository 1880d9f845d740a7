/**
 * How the context helpers are described to the model, for the environment section of a system
 * prompt (the executor passes it to @rlm/prompts, which cannot depend on this package). Kept
 * here, beside the helpers, so the description cannot drift from what they do.
 */
export const CONTEXT_HELPERS_PROMPT = `Fast context helpers (async, run outside the sandbox; much faster than scanning \`context\` yourself):
- \`await grep(pattern, { flags, context: n, max, target })\` → \`{ matches: [{ line, text, before, after }], total, note? }\`: lines where a RegExp or pattern string matches, with n lines around each.
- \`await find_all(pattern, { flags, max, target })\` → \`{ matches: [{ match, index, groups }], total, note? }\`: every match with its offset (use \`context.slice(index, …)\` to read around it).
- \`await count(pattern, { flags, target })\` → number of matches.
- \`await lines(start, end, { target })\` → the text of lines start..end (1-based, inclusive).
- \`await chunk(size, { overlap, max, target })\` → \`[{ index, start, end, startLine, endLine }]\` boundaries for \`context.slice(start, end)\` (more than \`max\` chunks, default 10000, is an error: pick a larger size).
They read \`context\` by default; \`target: 2\` reads \`context_2\`. Results are capped; \`note\` says how much was left out.
Example: \`const hits = await grep(/error code \\d+/i, { context: 2 }); print(hits.total, hits.matches.slice(0, 5));\``;
