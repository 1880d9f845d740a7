import { type ArcGrid, arcGridSchema } from './arc-task-file.js';

const GRID_CHARACTERS = /[0-9\s,[\]]/;
const DIGIT_ROW = /^\d(?:[ ,]*\d)*$/;

/**
 * The grid an answer states, or `undefined` when it states none: the whole answer as JSON
 * (`[[1,2],[3,4]]`), else the last JSON grid inside the text, else the last block of lines made
 * only of digits (`12` / `34`, or `1 2` / `3 4`: one digit per cell). Rows must be equally long.
 * Linear in the answer's length: one pass finds the candidates, each parsed once.
 */
export function parseGrid(text: string): ArcGrid | undefined {
  const whole = gridOf(safeJson(text.trim()));
  if (whole !== undefined) return whole;
  return lastJsonGrid(text) ?? lastDigitRows(text);
}

function lastJsonGrid(text: string): ArcGrid | undefined {
  let found: ArcGrid | undefined;
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const character = text[index];
    const inRun = character !== undefined && GRID_CHARACTERS.test(character);
    if (inRun && start < 0) start = index;
    if (inRun || start < 0) continue;
    const run = text.slice(start, index);
    start = -1;
    const open = run.indexOf('[');
    const close = run.lastIndexOf(']');
    if (open < 0 || close < open) continue;
    found = gridOf(safeJson(run.slice(open, close + 1))) ?? found;
  }
  return found;
}

function lastDigitRows(text: string): ArcGrid | undefined {
  let found: string[] = [];
  let block: string[] = [];
  for (const line of [...text.split('\n'), '']) {
    const row = line.trim();
    if (DIGIT_ROW.test(row)) {
      block.push(row);
      continue;
    }
    if (block.length > 0) found = block;
    block = [];
  }
  if (found.length === 0) return undefined;
  return gridOf(found.map((row) => [...row.replace(/[ ,]/g, '')].map(Number)));
}

function gridOf(value: unknown): ArcGrid | undefined {
  const parsed = arcGridSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether two grids have the same shape and the same colour in every cell. */
export function gridsEqual(left: ArcGrid, right: ArcGrid): boolean {
  return (
    left.length === right.length &&
    left.every(
      (row, index) =>
        row.length === right[index]?.length &&
        row.every((cell, column) => cell === right[index]?.[column]),
    )
  );
}
