import type { Logger as PinoLogger } from 'pino';
import type { Principal } from './api-key-store.js';
import type { RequestActivity } from './request-activity.js';

/** The Hono environment: what middlewares put on the context for handlers. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the auth middleware on every `/v1` and `/ui` route. */
    principal: Principal;
    /** A child logger carrying the request id. */
    log: PinoLogger;
    /** Requests and streams in progress, for a shutdown that delivers them first. */
    activity: RequestActivity;
  };
}
