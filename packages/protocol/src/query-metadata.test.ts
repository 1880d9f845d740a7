import { describe, expect, it } from 'vitest';
import {
  buildMetadataMessage,
  METADATA_MAX_LISTED_CHUNKS,
  queryMetadata,
} from './query-metadata.js';
import { RlmError } from './rlm-error.js';

function expectInvalidPayload(payload: unknown, path: string): void {
  let thrown: unknown;
  try {
    queryMetadata(payload);
  } catch (error) {
    thrown = error;
  }
  expect(RlmError.is(thrown, 'protocol.invalid_payload')).toBe(true);
  expect(thrown).toMatchObject({ details: { path } });
  expect((thrown as Error).message).toContain(path);
}

describe('queryMetadata', () => {
  it('describes a string by its length', () => {
    expect(queryMetadata('Hello, world!')).toEqual({
      contextType: 'string',
      contextLengths: [13],
      contextTotalLength: 13,
    });
  });

  it('describes an array of strings per element', () => {
    expect(queryMetadata(['ab', 'cde', ''])).toEqual({
      contextType: 'array',
      contextLengths: [2, 3, 0],
      contextTotalLength: 5,
    });
  });

  it('counts only the content of a list of chat messages', () => {
    const messages = [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there' },
    ];
    expect(queryMetadata(messages).contextLengths).toEqual([5, 8]);
  });

  it('counts a message without content as zero', () => {
    const messages = [{ role: 'user', content: 'abc' }, { role: 'user' }, 'loose'];
    expect(queryMetadata(messages)).toMatchObject({
      contextLengths: [3, 0, 0],
      contextTotalLength: 3,
    });
  });

  it('measures other objects in an array by their JSON length', () => {
    const items = [{ id: 1 }, [1, 2], 7, null];
    expect(queryMetadata(items).contextLengths).toEqual([8, 5, 1, 4]);
  });

  it('describes an object payload per value', () => {
    expect(queryMetadata({ a: 'four', b: { c: 1 }, d: 12 })).toEqual({
      contextType: 'object',
      contextLengths: [4, 7, 2],
      contextTotalLength: 13,
    });
  });

  it('describes an empty array as one empty chunk', () => {
    expect(queryMetadata([])).toEqual({
      contextType: 'array',
      contextLengths: [0],
      contextTotalLength: 0,
    });
  });

  it.each([
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['a function', () => 1],
  ])('rejects %s as the whole payload', (_label, payload) => {
    expectInvalidPayload(payload, 'context');
  });

  it('names the element that is not JSON', () => {
    expectInvalidPayload(['ok', () => 1], 'context[1]');
    expectInvalidPayload({ good: 'x', bad: undefined }, 'context.bad');
    expectInvalidPayload([{ content: 'a' }, { content: 10n }], 'context[1].content');
  });

  it('rejects cycles instead of crashing', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expectInvalidPayload({ data: cyclic }, 'context.data');
  });
});

describe('buildMetadataMessage', () => {
  it('states the type, the total and every chunk length', () => {
    const message = buildMetadataMessage(queryMetadata(['ab', 'cde']));
    expect(message).toContain('an array of 5 characters');
    expect(message).toContain('[2, 3]');
  });

  it('uses the right article for a string', () => {
    expect(buildMetadataMessage(queryMetadata('Hello, world!'))).toContain(
      'a string of 13 characters',
    );
  });

  it('lists the first 100 lengths, then how many others there are', () => {
    const chunks = Array.from({ length: METADATA_MAX_LISTED_CHUNKS + 5 }, (_, index) =>
      'x'.repeat(index),
    );
    const message = buildMetadataMessage(queryMetadata(chunks));
    const listed = Array.from({ length: METADATA_MAX_LISTED_CHUNKS }, (_, index) => index).join(
      ', ',
    );
    expect(message).toContain(`[${listed}, … [5 others]]`);
    expect(message).not.toContain(`${METADATA_MAX_LISTED_CHUNKS},`);
  });

  it('adds no summary for exactly 100 chunks', () => {
    const chunks = Array.from({ length: METADATA_MAX_LISTED_CHUNKS }, () => 'a');
    expect(buildMetadataMessage(queryMetadata(chunks))).not.toContain('others');
  });
});
