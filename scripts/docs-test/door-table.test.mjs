// The root README's capability × door table, checked against the code: every flag it names for a
// CLI command is in that command's --help, every door-parity test it names exists and runs the
// shared cases, and a door's parity test skips a case exactly where the table says "—".
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

function doorTable() {
  const start = readme.indexOf('<!-- door-table -->');
  const end = readme.indexOf('<!-- /door-table -->');
  assert.ok(start >= 0 && end > start, 'the README has a door table between its markers');
  const rows = readme
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, ...body] = rows;
  return { doors: header.slice(1), rows: body.map(([name, ...cells]) => ({ name, cells })) };
}

const { doors, rows } = doorTable();
const cellOf = (row, door) => rows.find((r) => r.name.startsWith(row))?.cells[doors.indexOf(door)];

test('the table has every door and every capability the issue names', () => {
  assert.deepEqual(doors, [
    '`rlm run`',
    '`rlm mcp` (stdio)',
    '`POST /v1/runs`',
    'chat completions',
    '`/v1/responses`',
    '`/mcp` (HTTP)',
    '`rlm eval`',
  ]);
  for (const name of [
    'offline',
    'limits',
    'coordinator',
    'drivers',
    'Python',
    'output schema',
    'resume',
    'cache',
  ]) {
    assert.ok(
      rows.some((row) => row.name.includes(name)),
      `a row for ${name}`,
    );
  }
  for (const row of rows) {
    for (const cell of row.cells) assert.match(cell, /^(✓|—)/, `${row.name}: "${cell}"`);
  }
});

const cli = join(root, 'apps', 'cli', 'dist', 'bin.js');
const helpOf = (command) =>
  execFileSync(process.execPath, [cli, command, '--help'], { encoding: 'utf8' });

test('every flag the table names for a CLI command is in its --help', {
  skip: !existsSync(cli) && 'the CLI is not built',
}, () => {
  const commands = { '`rlm run`': 'run', '`rlm mcp` (stdio)': 'mcp', '`rlm eval`': 'eval' };
  for (const [door, command] of Object.entries(commands)) {
    const help = helpOf(command);
    for (const row of rows) {
      const cell = row.cells[doors.indexOf(door)];
      for (const [, flag] of cell.matchAll(/`(--[a-z-]+)/g)) {
        assert.ok(help.includes(flag), `rlm ${command} --help offers ${flag} (${row.name})`);
      }
    }
  }
});

// Each parity test names the door columns it covers and the file that holds it.
const PARITY_TESTS = [
  { doors: ['`rlm run`', '`rlm mcp` (stdio)'], file: 'apps/cli/src/commands/door-parity.test.ts' },
  {
    doors: ['`POST /v1/runs`', 'chat completions', '`/v1/responses`', '`/mcp` (HTTP)'],
    file: 'apps/server/src/run-contract.test.ts',
  },
  { doors: ['`rlm eval`'], file: 'packages/eval/src/runner/door-parity.test.ts' },
];
// Which case of DOOR_PARITY_CASES a row stands for: the settings field a door must honour.
const CASE_FIELDS = {
  'coordinator mode': 'mode',
  'Python REPL': 'repl',
  'output schema': 'outputSchema',
};

test('each door-parity test exists, runs the shared cases, and skips only what the table leaves out', () => {
  for (const { doors: covered, file } of PARITY_TESTS) {
    assert.ok(readme.includes(file), `the README names ${file}`);
    const source = readFileSync(join(root, file), 'utf8');
    assert.match(source, /DOOR_PARITY_CASES/, `${file} runs the shared cases`);
    for (const door of covered) {
      for (const [row, field] of Object.entries(CASE_FIELDS)) {
        const skips = new RegExp(`settings\\.${field} !== undefined\\) continue`).test(source);
        const offered = cellOf(row, door).startsWith('✓');
        assert.equal(skips, !offered, `${file}: ${row} for ${door} is ${offered ? '✓' : '—'}`);
      }
    }
  }
});
