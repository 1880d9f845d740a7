import { RlmError } from '@rlm/protocol';

/** The typed error for a missing record of `kind` (`run`, `prompt-layer-version`…). */
export function notFound(kind: string, id: string): RlmError<'memory.not_found'> {
  return new RlmError({
    code: 'memory.not_found',
    message: `No ${kind} with id ${JSON.stringify(id)}`,
    details: { kind, id },
  });
}
