/**
 * Iterates a stream, handing each event to `onEvent`, and aborts `idle` when no event arrives
 * for `idleMs`. SDK timeouts stop at the response headers, so without this a stalled stream
 * would hang forever. The timer is cleared however the iteration ends.
 */
export async function consumeStream<TEvent>(
  stream: AsyncIterable<TEvent>,
  {
    idleMs,
    idle,
    onEvent,
  }: { idleMs: number; idle: AbortController; onEvent: (event: TEvent) => void },
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  try {
    arm();
    for await (const event of stream) {
      arm();
      onEvent(event);
    }
  } finally {
    clearTimeout(timer);
  }
}
