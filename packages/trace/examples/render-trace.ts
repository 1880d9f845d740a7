import { writeFile } from 'node:fs/promises';
import { readTrajectory, renderTraceHtml, TraceTree, trajectoryEvents } from '@rlm/trace';

/** Writes a recorded run as one HTML page and returns how it ended. */
export async function traceToHtml(trajectoryPath: string, htmlPath: string) {
  const records = await readTrajectory(trajectoryPath); // a last line cut by a crash is left out
  const tree = new TraceTree();
  for (const event of trajectoryEvents(records)) tree.apply(event);
  await writeFile(htmlPath, renderTraceHtml(tree)); // one self-contained page, every text escaped
  return { status: tree.root?.status, turns: tree.root?.iterations.length, costUsd: tree.costUsd };
}
