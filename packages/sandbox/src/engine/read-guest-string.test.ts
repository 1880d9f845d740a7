import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DIRECT_READ_MIN_CHARS,
  readGuestString,
  readOneByteGuestString,
} from './read-guest-string.js';

let context: QuickJSContext;

beforeAll(async () => {
  const module = await newQuickJSWASMModuleFromVariant(
    RELEASE_SYNC as unknown as QuickJSSyncVariant,
  );
  context = module.newContext();
});

afterAll(() => {
  context.dispose();
});

/** The guest string `code` evaluates to, read by `read`, and by the library's `getString`. */
function readBoth(code: string, read: typeof readGuestString | typeof readOneByteGuestString) {
  const handle = context.unwrapResult(context.evalCode(code));
  try {
    return { read: read(context, handle), library: context.getString(handle) };
  } finally {
    handle.dispose();
  }
}

describe('readGuestString', () => {
  it('reads a long one-byte string in place, Latin-1 characters included', () => {
    const code = `JSON.stringify(['é ü ß ÿ \\u0001 "quoted"\\n'.repeat(${DIRECT_READ_MIN_CHARS}), 'x'])`;
    const { read, library } = readBoth(code, readOneByteGuestString);
    expect(read).toBeDefined();
    expect(read).toBe(library);
    expect(read?.length).toBeGreaterThan(DIRECT_READ_MIN_CHARS);
  });

  it('reads wide, short and non-string values the library way, with the same text', () => {
    const cases = [`'😀 \\ud800 lone'.repeat(${DIRECT_READ_MIN_CHARS})`, "'short é'", "''", '42'];
    for (const code of cases) {
      expect(readBoth(code, readOneByteGuestString).read).toBeUndefined();
      const { read, library } = readBoth(code, readGuestString);
      expect(read).toBe(library);
    }
  });
});
