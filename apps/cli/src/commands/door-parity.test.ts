import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { samplingClient } from '@rlm/mcp/testing';
import { DOOR_PARITY_CASES, type DoorParityCase } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { startMcpInProcess } from '../testing/run-mcp-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

// The CLI's two doors onto the runner, `rlm run` and `rlm mcp`, given the cases every door runs:
// each must report the outcome the runner gives for the same settings.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

/** The settings a user (or an operator starting `rlm mcp`) gives as flags. */
function operatorFlags({ settings }: DoorParityCase, { withSchema }: { withSchema: boolean }) {
  const flags = ['--model', settings.model];
  if (settings.repl !== undefined) flags.push('--repl', settings.repl);
  if (settings.mode !== undefined) flags.push('--mode', settings.mode);
  const { maxDepth, maxSubcalls } = settings.limits ?? {};
  if (maxDepth !== undefined) flags.push('--max-depth', String(maxDepth));
  if (maxSubcalls !== undefined) flags.push('--max-subcalls', String(maxSubcalls));
  if (withSchema && settings.outputSchema !== undefined) {
    const file = join(sandbox.dir, 'schema.json');
    writeFileSync(file, JSON.stringify(settings.outputSchema));
    flags.push('--output-schema', file);
  }
  return flags;
}

describe('the door-parity cases through rlm run', { timeout: 180_000 }, () => {
  for (const parityCase of DOOR_PARITY_CASES) {
    it(`gives the runner’s outcome for ${parityCase.name}`, async () => {
      const contextFile = join(sandbox.dir, 'context.txt');
      writeFileSync(contextFile, parityCase.context);
      const result = await runCliInProcess(
        [
          'run',
          parityCase.query,
          '--context',
          contextFile,
          '--json',
          '-q',
          ...operatorFlags(parityCase, { withSchema: true }),
        ],
        { cwd: sandbox.dir, env: sandbox.env },
      );
      const json = JSON.parse(result.stdout) as { status: string; answer: unknown };
      const answer =
        json.answer === null || typeof json.answer === 'string'
          ? json.answer
          : JSON.stringify(json.answer);
      expect({ status: json.status, answer }, result.stderr).toEqual(parityCase.expected);
    });
  }
});

describe('the door-parity cases through rlm mcp', { timeout: 180_000 }, () => {
  for (const parityCase of DOOR_PARITY_CASES) {
    it(`gives the runner’s outcome for ${parityCase.name}`, async () => {
      // The operator's settings are flags; what a client may choose goes in the tool's arguments.
      // In process, like `rlm run` above: the door's behaviour, not the bin's start-up (mcp-command.test.ts has that).
      const mcp = startMcpInProcess(operatorFlags(parityCase, { withSchema: false }), {
        cwd: sandbox.dir,
        env: sandbox.env,
      });
      const client = samplingClient('agent', undefined, { model: 'client' });
      await client.connect(mcp.transport);
      try {
        const result = (await client.callTool(
          {
            name: 'rlm_query',
            arguments: {
              query: parityCase.query,
              context: parityCase.context,
              ...(parityCase.settings.outputSchema === undefined
                ? {}
                : { outputSchema: parityCase.settings.outputSchema }),
            },
          },
          undefined,
          { timeout: 150_000 },
        )) as CallToolResult;
        const structured = result.structuredContent as { outcome: string; answer: string | null };
        expect({ status: structured.outcome, answer: structured.answer }).toEqual(
          parityCase.expected,
        );
      } finally {
        await client.close();
        await mcp.exited;
      }
    });
  }
});
