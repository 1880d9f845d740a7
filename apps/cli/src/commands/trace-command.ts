import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findTrajectoryHeader, renderTraceHtml, TraceTree, trajectoryEvents } from '@rlm/trace';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';
import { renderRunTree } from '../render/render-run-tree.js';
import { findTrajectory } from './find-trajectory.js';
import { loadTrajectory } from './load-trajectory.js';

/** `rlm trace PATH [--html OUT]`: a recorded run as a terminal tree or one HTML file. */
export function registerTraceCommand(
  program: Command,
  { io, setExitCode }: { io: CliIo; setExitCode(code: ExitCode): void },
): void {
  program
    .command('trace')
    .description('show a recorded run (trajectory) as a tree, or write it as one HTML page')
    .argument('<trajectory>', 'a .jsonl trajectory file, or a run id in the trajectory directory')
    .option('--html <file>', 'write a self-contained HTML page instead of printing the tree')
    .option('--debug', 'show stack traces on errors')
    .addHelpText(
      'after',
      `
Examples:
  $ rlm trace ~/.local/share/rlm/trajectories/4f1c….jsonl
  $ rlm trace 4f1c2a9e-…            # a run id from the trajectory directory
  $ rlm trace run.jsonl --html run.html && open run.html`,
    )
    .action(async (reference: string, options: { html?: string }) => {
      const records = await loadTrajectory(findTrajectory(reference, io));
      const tree = new TraceTree();
      for (const event of trajectoryEvents(records)) tree.apply(event);
      if (options.html !== undefined) {
        const out = resolve(io.cwd, options.html);
        const runId = tree.rootRunId ?? findTrajectoryHeader(records)?.runId ?? '';
        await writeFile(out, renderTraceHtml(tree, { title: `rlm trace ${runId}`.trim() }));
        io.stderr.write(`wrote ${out}\n`);
      } else {
        const lines = renderRunTree(tree, {
          now: tree.lastAt ?? 0,
          width: io.stdout.columns ?? 100,
          color: io.stdout.isTTY === true && io.env['NO_COLOR'] === undefined,
          detail: 'full',
        });
        io.stdout.write(`${lines.join('\n')}\n`);
      }
      setExitCode(EXIT_CODES.answered);
    });
}
