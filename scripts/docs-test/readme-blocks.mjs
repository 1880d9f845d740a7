// Finds the fenced code blocks a README marks runnable. The convention (documented in the root
// README, "Working on the repository"): an HTML comment `<!-- runnable -->` (invisible on GitHub)
// on its own line before a fenced block; only blank lines and other HTML comments may come between.
// Options follow the word: `<!-- runnable stdout=json -->` also requires stdout to be one JSON value.

/** The block languages the docs test can run, and how. */
export const LANGUAGES = {
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  js: 'javascript',
  javascript: 'javascript',
  mjs: 'javascript',
  ts: 'typescript',
  typescript: 'typescript',
};

/** The options a marker may set, and the values each accepts. */
const OPTIONS = { stdout: ['json'] };

const MARKER = /^<!--\s*runnable\b(.*?)-->\s*$/;
const COMMENT = /^<!--.*-->\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/;

/** A closing fence: the opening's character, at least as many times, and nothing else. */
function closesFence(line, ticks) {
  const trimmed = line.trim();
  return trimmed.length >= ticks.length && trimmed === ticks[0].repeat(trimmed.length);
}

/** A README problem, reported with its file and line. */
export class ReadmeBlockError extends Error {}

function parseOptions(text, where) {
  const options = {};
  for (const pair of text.trim().split(/\s+/).filter(Boolean)) {
    const [key, value] = pair.split('=');
    if (!(key in OPTIONS) || !OPTIONS[key].includes(value)) {
      const known = Object.entries(OPTIONS).map(([name, values]) => `${name}=${values.join('|')}`);
      throw new ReadmeBlockError(
        `${where}: unknown runnable option "${pair}"; expected ${known.join(', ')}`,
      );
    }
    options[key] = value;
  }
  return options;
}

/** The index of the line closing the fence opened at `index`. */
function closingLine(lines, { index, ticks, file }) {
  const end = lines.findIndex((line, at) => at > index && closesFence(line, ticks));
  if (end < 0) throw new ReadmeBlockError(`${file}:${index + 1}: the code block never ends`);
  return end;
}

function runnableBlock({ lines, index, end, language, options, file }) {
  const kind = LANGUAGES[language];
  if (kind === undefined) {
    throw new ReadmeBlockError(
      `${file}:${index + 1}: a \`${language || 'plain'}\` block cannot be marked runnable; the docs test runs ${Object.keys(LANGUAGES).join(', ')}`,
    );
  }
  return { line: index + 1, language, kind, code: lines.slice(index + 1, end).join('\n'), options };
}

/**
 * The runnable blocks of one README, in order: `{ line, language, kind, code, options }`, where
 * `line` is the 1-based line of the opening fence and `kind` one of shell, javascript, typescript.
 *
 * @throws ReadmeBlockError for a marker not followed by a block, an unknown option, a language the
 * docs test cannot run, or an unterminated block
 */
export function findRunnableBlocks(markdown, file) {
  const lines = markdown.split('\n');
  const blocks = [];
  let pending; // the marker waiting for its block: { line, options }
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index];
    const marker = MARKER.exec(text);
    const fence = FENCE.exec(text);
    if (marker) {
      pending = { line: index + 1, options: parseOptions(marker[1], `${file}:${index + 1}`) };
    } else if (fence) {
      const end = closingLine(lines, { index, ticks: fence[1], file });
      if (pending !== undefined) {
        const { options } = pending;
        blocks.push(runnableBlock({ lines, index, end, language: fence[2], options, file }));
      }
      pending = undefined;
      index = end;
    } else if (pending !== undefined && text.trim() !== '' && !COMMENT.test(text)) {
      throw new ReadmeBlockError(
        `${file}:${pending.line}: <!-- runnable --> must come right before a code block`,
      );
    }
  }
  if (pending !== undefined) {
    throw new ReadmeBlockError(
      `${file}:${pending.line}: <!-- runnable --> has no code block after it`,
    );
  }
  return blocks;
}
