import { RlmError } from '@rlm/protocol';
import { EXIT_CODES, type ExitCode } from './exit-code.js';

/** What the user sees for a failure: one sentence with the fix, and the exit code. */
export interface ErrorDescription {
  message: string;
  exitCode: ExitCode;
}

/** Codes caused by what the user typed or configured: the run never started, so it is a usage error. */
const USAGE_CODES = new Set<string>([
  'cli.usage',
  'config.invalid',
  'protocol.invalid_config',
  'cli.context_unreadable',
  'cli.context_binary',
  'cli.context_too_large',
  'cli.trajectory_invalid',
  'model.unknown_provider',
  'model.missing_api_key',
  'prompts.driver_invalid',
  'prompts.driver_not_found',
  'prompts.driver_conflict',
]);

const CANCEL_CODES = new Set<string>(['executor.cancelled', 'model.aborted', 'sandbox.aborted']);

/**
 * Turns any thrown value into one clear sentence and an exit code. Messages of known codes get
 * the fix appended here, because the packages that throw them cannot know which flag or
 * variable the user should change.
 */
export function describeError(error: unknown): ErrorDescription {
  if (!RlmError.is(error)) {
    const text = error instanceof Error ? error.message : String(error);
    return {
      message: `Unexpected error: ${text} (run again with --debug for details).`,
      exitCode: EXIT_CODES.failed,
    };
  }
  const exitCode = CANCEL_CODES.has(error.code)
    ? EXIT_CODES.cancelled
    : USAGE_CODES.has(error.code)
      ? EXIT_CODES.usage
      : EXIT_CODES.failed;
  return { message: withFix(error), exitCode };
}

function withFix(error: RlmError): string {
  if (RlmError.is(error, 'model.missing_api_key')) {
    const variable = error.details.variable;
    return `${variable} is not set; export ${variable}=<your key>, or pick another model with --model (try --model testkit:needle-finder for an offline demo).`;
  }
  if (RlmError.is(error, 'model.network')) {
    return `${sentence(error.message)} Check that the model server is running and that --model (or OPENAI_BASE_URL / ANTHROPIC_BASE_URL) points at it.`;
  }
  if (RlmError.is(error, 'model.auth')) {
    return `The model provider rejected the API key (HTTP ${error.details.status}); check ANTHROPIC_API_KEY or OPENAI_API_KEY.`;
  }
  if (RlmError.is(error, 'model.not_found')) {
    return `The provider does not know the model ${error.details.model}; check the id passed to --model.`;
  }
  if (RlmError.is(error, 'model.unknown_provider')) {
    return `Unknown model id ${error.details.modelId}; use anthropic/<model>, openai/<model>, openai-compatible/<model>@<base url> or testkit:<policy>.`;
  }
  return sentence(error.message);
}

/** Ends the message with a period, so appended fixes read as sentences. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
