import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { realRoots } from './allowed-roots.js';

/** How long to wait for the client's `roots/list` answer. @default 10_000 */
export const ROOTS_LIST_TIMEOUT_MS = 10_000;

/**
 * The directories a session may read: the roots the client declares (MCP roots, re-read after
 * `notifications/roots/list_changed`), else the working directory; plus the server's own
 * `--root` directories. All as real paths; relative paths resolve against the first. A remote
 * server turns the client's roots off (they name the client's disk, not the server's) and gives
 * `cwd: null`, so only its configured directories can be read.
 */
export function sessionRoots(
  server: Server,
  {
    cwd,
    extra,
    clientRoots,
  }: { cwd: string | null; extra: readonly string[]; clientRoots: boolean },
): () => Promise<string[]> {
  let cached: Promise<string[]> | null = null;
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    cached = null;
  });
  async function read(): Promise<string[]> {
    let declared: string[] = [];
    if (clientRoots && server.getClientCapabilities()?.roots !== undefined) {
      const { roots } = await server
        .listRoots(undefined, { timeout: ROOTS_LIST_TIMEOUT_MS })
        .catch(() => ({ roots: [] }));
      declared = roots
        .filter((root) => root.uri.startsWith('file://'))
        .map((root) => fileURLToPath(root.uri));
    }
    const fallback = cwd === null ? [] : [cwd];
    return realRoots([...(declared.length > 0 ? declared : fallback), ...extra]);
  }
  return () => {
    if (cached === null) {
      cached = read();
      cached.catch(() => {
        cached = null;
      });
    }
    return cached;
  };
}
