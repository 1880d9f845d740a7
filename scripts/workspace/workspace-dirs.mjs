// The workspace's package directories (packages/*, apps/*), as pnpm-workspace.yaml lists them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Each package directory relative to `root`, sorted; a missing group has none. */
export function workspaceDirs(root) {
  const dirs = [];
  for (const group of ['packages', 'apps']) {
    let entries;
    try {
      entries = readdirSync(join(root, group), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.isDirectory()) dirs.push(join(group, entry.name));
  }
  return dirs.sort();
}
