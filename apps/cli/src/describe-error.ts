import { RlmError } from '@rlm/protocol';
import { EXIT_CODES, type ExitCode, exitCodeForError } from './exit-code.js';

/** What the user sees for a failure: one sentence with the fix, and the exit code. */
export interface ErrorDescription {
  message: string;
  exitCode: ExitCode;
}

/**
 * Turns any thrown value into one clear sentence and an exit code. Messages of known codes get
 * the fix appended here, because the packages that throw them cannot know which flag or
 * variable the user should change.
 */
export function describeError(error: unknown, hints: ErrorHints = {}): ErrorDescription {
  if (!RlmError.is(error)) {
    const text = error instanceof Error ? error.message : String(error);
    return {
      message: `Unexpected error: ${text} (run again with --debug for details).`,
      exitCode: EXIT_CODES.failed,
    };
  }
  return { message: withFix(error, hints), exitCode: exitCodeForError(error.code) };
}

/** Where a model id sends its requests, for messages about unreachable servers. */
export interface ErrorHints {
  model?: string;
  baseUrl?: string;
}

function withFix(error: RlmError, hints: ErrorHints = {}): string {
  if (RlmError.is(error, 'model.auth') && error.details.variable !== undefined) {
    // No key at all: the fix is the variable (the CLI reads keys from the environment only).
    const variable = error.details.variable;
    return `${variable} is not set; export ${variable}=<your key>, or pick another model with --model (try --model testkit:needle-finder for an offline demo).`;
  }
  if (RlmError.is(error, 'config.invalid') && error.details.source.startsWith('MCP server ')) {
    // @rlm/mcp speaks of its `prefix` option; on the command line that is --mcp-prefix.
    return sentence(
      error.message
        .replaceAll('pass a prefix such as "mcp_"', 'pass --mcp-prefix, such as --mcp-prefix mcp_')
        // Two names of one server that become one REPL name clash under any prefix.
        .replaceAll(
          'pass a prefix or include',
          'the command line cannot choose one (the include option of @rlm/mcp can)',
        ),
    );
  }
  return failureSentence(error.code, error.message, hints);
}

/**
 * One sentence for a failure known by code and message, with the fix for the codes whose fix is
 * a flag or variable of this CLI. Also used for failures a run reports in its result.
 */
export function failureSentence(code: string, message: string, hints: ErrorHints = {}): string {
  const target = hints.baseUrl === undefined ? '' : ` at ${hints.baseUrl}`;
  const variable = hints.model?.startsWith('anthropic/') ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL';
  switch (code) {
    case 'model.network':
    case 'model.timeout':
      return `Cannot reach the model server${target} (${withoutPeriod(message)}); check that it is running and that --model or ${variable} points at it.`;
    case 'model.auth':
      return `The model server${target} rejected the API key (${withoutPeriod(message)}); check ANTHROPIC_API_KEY or OPENAI_API_KEY.`;
    case 'model.not_found':
      return `The model server does not know this model (${withoutPeriod(message)}); check the id passed to --model.`;
    case 'model.unknown_provider':
      return `${withoutPeriod(message)}; use anthropic/<model>, openai/<model>, openrouter/<model>, openai-compatible/<model>@<base url> or testkit:<policy>.`;
    case 'executor.budget_exceeded':
      return `${withoutPeriod(message)}; raise the budget (--max-tokens, --max-cost, --max-subcalls) and continue it with rlm resume.`;
    default:
      return sentence(message);
  }
}

function withoutPeriod(text: string): string {
  return text.trim().replace(/\.$/, '');
}

/** Ends the message with a period, so appended fixes read as sentences. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
