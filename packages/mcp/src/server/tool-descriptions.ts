/**
 * What each tool tells the client's model. The REPL tools teach the method in a few lines: load
 * the data as `context`, look at it with code, delegate reading to `llm_query`, end with `FINAL`.
 */
export const TOOL_DESCRIPTIONS = {
  rlm_query:
    'Answer a question over text or files too large for your context window: a Recursive Language Model ' +
    'loads them as `context` in a sandboxed JavaScript REPL and, with its own model, writes code to search, ' +
    'split and sub-query them until it can answer. Pass `query` and `paths` (files, directories or globs) ' +
    'and/or `context` text. Returns the answer; a run that ends without one is an error naming how it ended.',
  context_load:
    'Load files (`paths`: files, directories or globs inside the allowed roots) and/or `text` into this ' +
    "session's persistent JavaScript REPL as the string variable `context` (several files are joined, each " +
    'after a `=== path ===` line). Replaces any earlier context and starts a fresh REPL. Returns its size, line ' +
    'count, files and a preview: then explore it with repl_exec instead of reading it yourself.',
  repl_exec:
    "Run JavaScript in this session's persistent REPL (QuickJS; top-level await; variables persist). " +
    '`context` holds the loaded text. Helpers: `grep(pattern, {context: n})`, `find_all`, `count`, ' +
    '`lines(start, end)`, `chunk(size)`; `await llm_query(prompt)` asks a sub-model (yours, through ' +
    'sampling) about a slice, `await llm_query_batched(prompts)` asks many at once. Print what you need to ' +
    'see (output is capped at 20,000 chars). Method: peek at the structure, search, hand chunks to ' +
    'llm_query_batched, combine, then call `FINAL(answer)` or `FINAL_VAR(name)` to return the answer.',
  repl_reset:
    'Start a fresh REPL for this session: every variable is dropped, the loaded `context` is kept.',
} as const;
