import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvalTask } from '../task/eval-task.js';
import type { EvalSystem } from './eval-system.js';

/** The file name of the manifest inside an eval's output directory. */
export const RUN_MANIFEST_FILE = 'run.json';

/** What was run: enough to reproduce it (generated tasks are fixed by benchmark, size and seed in their ids). */
export interface RunManifest {
  startedAt: string;
  systems: EvalSystem[];
  attempts: number;
  concurrency: number;
  budget: { maxCostUsd?: number };
  /** Rows kept from an earlier run of this directory. */
  resumed: number;
  tasks: {
    id: string;
    benchmark: string | null;
    size: number | null;
    contextFile: string | null;
  }[];
}

/** Writes `run.json` (systems, options and task list) so a report can be traced to its setup. */
export async function writeRunManifest(
  outDir: string,
  { systems, tasks, ...rest }: Omit<RunManifest, 'tasks'> & { tasks: readonly EvalTask[] },
): Promise<void> {
  const manifest: RunManifest = {
    ...rest,
    systems,
    tasks: tasks.map((task) => ({
      id: task.id,
      benchmark: typeof task.meta['benchmark'] === 'string' ? task.meta['benchmark'] : null,
      size: typeof task.meta['size'] === 'number' ? task.meta['size'] : null,
      contextFile: task.contextFile ?? null,
    })),
  };
  await mkdir(outDir, { recursive: true });
  await writeFile(
    join(outDir, RUN_MANIFEST_FILE),
    `${JSON.stringify(manifest, null, 2)}\n`,
    'utf8',
  );
}
