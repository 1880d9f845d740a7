import { describe, expect, it } from 'vitest';
import { SHARED_TEXT_MIN_CHARS } from './context-ops/shared-text.js';
import { createSandbox } from './create-sandbox.js';
import type { Sandbox } from './sandbox.js';
import { ISOLATIONS, TEST_MEMORY_BYTES, withSandbox } from './sandbox-cases.test-helpers.js';
import { workerPool } from './worker-pool.js';
import { WorkerSandbox } from './worker-sandbox.js';

/** At least `SHARED_TEXT_MIN_CHARS` of numbered lines, each ending with `tail(i)`. */
function longText(tail: (line: number) => string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size <= SHARED_TEXT_MIN_CHARS; i++) {
    const line = `line ${i} ${tail(i)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

const ASCII = longText((i) => (i % 5_000 === 2_500 ? 'NEEDLE here' : 'status=ok lorem ipsum'));
/** No character above U+00FF: QuickJS keeps it a byte a character, as it does ASCII. */
const LATIN1 = longText((i) => (i % 5_000 === 2_500 ? 'NEEDLE ÿ' : 'naïve café crème brûlée'));
const UNICODE = longText((i) => (i % 5_000 === 2_500 ? 'NEEDLE 😀 漢字' : 'naïve café 漢字 😀'));
/** UTF-8 cannot carry a lone surrogate, and QuickJS would cut a string at a NUL. */
const AWKWARD = longText((i) =>
  i % 5_000 === 2_500 ? 'NEEDLE \uD800 lone' : i === 7 ? 'nul \u0000 here' : 'plain text',
);

/** A checksum over every character (the guest computes the same). */
const CHECKSUM = `let sum = 0;
for (let i = 0; i < context.length; i++) sum = (sum * 31 + context.charCodeAt(i)) | 0;
sum`;
function checksum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) | 0;
  return sum;
}

async function value(sandbox: Sandbox, code: string): Promise<unknown> {
  const result = await sandbox.execute(`var __value = (${code});`);
  expect(result.error).toBeNull();
  return sandbox.getVariable('__value');
}

async function block(sandbox: Sandbox, code: string): Promise<unknown> {
  const result = await sandbox.execute(`var __value = await (async () => { ${code} })();`);
  expect(result.error).toBeNull();
  return sandbox.getVariable('__value');
}

describe.each(ISOLATIONS)('long contexts (%s)', (isolation) => {
  for (const [name, text] of [
    ['ASCII', ASCII],
    ['Latin-1', LATIN1],
    ['non-ASCII', UNICODE],
    ['lone-surrogate and NUL', AWKWARD],
  ] as const) {
    it(`holds a long ${name} context character for character`, async () => {
      await withSandbox({ isolation, context: text }, async (sandbox) => {
        expect(await value(sandbox, 'context.length')).toBe(text.length);
        expect(await block(sandbox, `${CHECKSUM.replace(/\nsum$/, '\nreturn sum;')}`)).toBe(
          checksum(text),
        );
        const middle = Math.floor(text.length / 2);
        expect(await value(sandbox, `context.slice(${middle}, ${middle + 300})`)).toBe(
          text.slice(middle, middle + 300),
        );
      });
    });

    it(`gives the same helper results on the first call and later ones over a long ${name} context`, async () => {
      await withSandbox({ isolation, context: text }, async (sandbox) => {
        const calls = `return [
          await find_all(/NEEDLE.{0,3}/),
          await count("NEEDLE"),
          await grep("NEEDLE", { context: 1, max: 3 }),
          await lines(8, 9),
          (await chunk(100000)).length,
        ];`;
        const first = await block(sandbox, calls);
        const again = await block(sandbox, calls);
        expect(again).toEqual(first);
        const expected = [...text.matchAll(/NEEDLE.{0,3}/g)];
        const [found, counted, , someLines] = first as [
          { matches: { match: string; index: number }[] },
          number,
          unknown,
          string,
        ];
        expect(found.matches.map((match) => [match.match, match.index])).toEqual(
          expected.map((match) => [match[0], match.index]),
        );
        expect(counted).toBe(expected.length);
        expect(someLines).toBe(text.split('\n').slice(7, 9).join('\n'));
      });
    });
  }
});

/** Whether the worker of a worker sandbox over `context` is back in the pool once it is disposed. */
async function pooledAfterDispose(context: string): Promise<boolean> {
  const sandbox = await createSandbox({
    isolation: 'worker',
    context,
    limits: { memoryBytes: TEST_MEMORY_BYTES },
  });
  if (!(sandbox instanceof WorkerSandbox)) throw new Error('expected a worker sandbox');
  const thread = sandbox.threadId;
  await sandbox.dispose();
  const idle = [];
  while (workerPool.idleCount > 0) idle.push(workerPool.take());
  try {
    return idle.some((worker) => worker.threadId === thread);
  } finally {
    for (const worker of idle) workerPool.give(worker);
  }
}

describe('long contexts and the worker pool', () => {
  it('terminates the worker of a sandbox that held a long payload rather than pooling it', async () => {
    expect(await pooledAfterDispose(ASCII)).toBe(false);
  });

  it('still pools the worker of a sandbox with a short payload', async () => {
    expect(await pooledAfterDispose('short')).toBe(true);
  });
});
