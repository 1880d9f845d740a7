import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

/**
 * Counts requests still being answered, streamed responses included, so a shutdown can wait for
 * every response to be delivered before the process exits.
 */
export interface RequestActivity {
  /** Marks the start of some work; call the returned function once it is done. */
  begin(): () => void;
  /** Resolves true once nothing is in progress, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean>;
  readonly active: number;
}

export function createRequestActivity(): RequestActivity {
  let active = 0;
  const waiters = new Set<() => void>();
  const settle = () => {
    if (active > 0) return;
    for (const wake of [...waiters]) wake();
  };
  return {
    begin() {
      active += 1;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        active -= 1;
        settle();
      };
    },
    idle(timeoutMs) {
      if (active === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const finish = (idle: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(idle);
        };
        const wake = () => finish(true);
        const timer = setTimeout(() => finish(false), timeoutMs);
        waiters.add(wake);
      });
    },
    get active() {
      return active;
    },
  };
}

/** Tracks each request until its handler has returned (streams track themselves, see `guardedSse`). */
export function trackRequests(activity: RequestActivity): MiddlewareHandler<AppEnv> {
  return async function trackRequestsMiddleware(c, next) {
    c.set('activity', activity);
    const end = activity.begin();
    try {
      await next();
    } finally {
      end();
    }
  };
}
