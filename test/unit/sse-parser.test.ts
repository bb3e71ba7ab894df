/**
 * SseParser (src/adapters/upstream/sse-parser.ts): the event-stream grammar over arbitrary byte chunks.
 * Every case is also fed one byte at a time, because upstream chunk boundaries fall anywhere.
 */
import { describe, expect, it } from 'vitest';
import { SseEventTooLargeError, SseParser } from '../../src/adapters/upstream/sse-parser.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Feeds the chunks, then ends the input; returns every event's data. */
function parse(chunks: Uint8Array[]): string[] {
  const parser = new SseParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

const whole = (text: string): string[] => parse([bytes(text)]);
const bytewise = (text: string): string[] => parse([...bytes(text)].map((byte) => Uint8Array.of(byte)));

describe('SseParser', () => {
  it.each([
    ['`\\n` line endings', 'data: {"a":1}\n\ndata: [DONE]\n\n', ['{"a":1}', '[DONE]']],
    ['`\\r\\n` line endings', 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n', ['{"a":1}', '[DONE]']],
    ['lone `\\r` line endings', 'data: x\r\rdata: y\r\r', ['x', 'y']],
    ['multi-line data joined with \\n', 'data: first\ndata: second\ndata:third\n\n', ['first\nsecond\nthird']],
    ['comments ignored', ': keep-alive\n\n: OPENROUTER PROCESSING\ndata: x\n\n', ['x']],
    [
      'event, id, retry and unknown fields tolerated',
      'event: message\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n',
      ['x'],
    ],
    ['only one leading space stripped', 'data:  two spaces\n\n', [' two spaces']],
    ['a field without a colon', 'data\n\n', ['']],
    ['an empty data field is an event', 'data:\n\n', ['']],
    ['blank lines without data dispatch nothing', '\n\n\nevent: ping\n\n', []],
    ['a colon inside the value kept', 'data: {"url":"http://x"}\n\n', ['{"url":"http://x"}']],
    ['a leading byte-order mark dropped', '\uFEFFdata: x\n\n', ['x']],
    ['multi-byte characters', 'data: привет 👋\n\n', ['привет 👋']],
  ])('%s', (_name, text, expected) => {
    expect(whole(text)).toEqual(expected);
    expect(bytewise(text)).toEqual(expected);
  });

  it('joins an event split across chunks at any point, including between `\\r` and `\\n`', () => {
    const text = 'data: {"choices":[]}\r\n\r\ndata: [DONE]\r\n\r\n';
    for (let cut = 0; cut <= text.length; cut++) {
      expect(parse([bytes(text.slice(0, cut)), bytes(text.slice(cut))])).toEqual(['{"choices":[]}', '[DONE]']);
    }
  });

  it('returns each event from push() as soon as its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push(bytes('data: a\n'))).toEqual([]);
    expect(parser.push(bytes('\ndata: b'))).toEqual(['a']);
    expect(parser.push(bytes('\n\n'))).toEqual(['b']);
    expect(parser.end()).toEqual([]);
  });

  it('at the end, dispatches an event whose lines all arrived, though the blank line did not', () => {
    expect(whole('data: x\n\ndata: [DONE]\n')).toEqual(['x', '[DONE]']);
  });

  it('at the end, dispatches an event whose last line ended with a lone `\\r`', () => {
    expect(whole('data: x\r\rdata: [DONE]\r')).toEqual(['x', '[DONE]']);
    expect(bytewise('data: x\r\rdata: [DONE]\r')).toEqual(['x', '[DONE]']);
  });

  it('at the end, drops an event whose last line was cut off, so truncated JSON is never passed on', () => {
    expect(whole('data: x\n\ndata: {"choi')).toEqual(['x']);
    expect(whole('data: x\n\ndata: one\ndata: {"choi')).toEqual(['x']);
  });

  it('throws SseEventTooLargeError on an event past the limit, even without a line ending', () => {
    expect(() => new SseParser({ maxEventChars: 16 }).push(bytes(`data: ${'x'.repeat(32)}`))).toThrow(
      SseEventTooLargeError,
    );
    const parser = new SseParser({ maxEventChars: 16 });
    expect(() =>
      ['data: 0123456\n', 'data: 0123456\n', 'data: 0123456\n'].forEach((line) => parser.push(bytes(line))),
    ).toThrow(SseEventTooLargeError);
  });

  it('keeps failing with SseEventTooLargeError once an event was too large', () => {
    const parser = new SseParser({ maxEventChars: 16 });
    expect(() => parser.push(bytes(`data: ${'x'.repeat(32)}`))).toThrow(SseEventTooLargeError);
    expect(() => parser.push(bytes('\n\ndata: y\n\n'))).toThrow(SseEventTooLargeError);
    expect(() => parser.end()).toThrow(SseEventTooLargeError);
  });

  it('allows events up to the limit', () => {
    expect(parse([bytes('data: 0123456789\n\n')]).length).toBe(1);
    const parser = new SseParser({ maxEventChars: 16 });
    expect(parser.push(bytes('data: 0123456789\n\n'))).toEqual(['0123456789']);
  });
});

describe('SseParser on a long line in many chunks', () => {
  it('reassembles a multi-megabyte payload (e.g. a base64 image) sent in 16 KiB chunks', () => {
    const payload = 'A'.repeat(4 * 1024 * 1024);
    const text = bytes(`data: ${payload}\n\n`);
    const chunks = Array.from({ length: Math.ceil(text.length / 16_384) }, (_, i) =>
      text.subarray(i * 16_384, (i + 1) * 16_384),
    );
    expect(parse(chunks)).toEqual([payload]);
  });
});
