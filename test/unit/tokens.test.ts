import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import {
  charsUpTo,
  AUDIO_BYTES_PER_TOKEN,
  IMAGE_PART_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  countTokens,
  estimatePromptTokens,
  truncateToTokens,
} from '../../src/domain/tokens.js';

describe('countTokens (o200k_base)', () => {
  it('counts what the o200k_base encoder produces', () => {
    for (const text of ['hello world', 'Привет, мир', '数据中心的 GPU', 'const x = 1;\n']) {
      expect(countTokens(text)).toBe(encode(text).length);
    }
    expect(countTokens('hello world')).toBe(2);
  });

  it('is 0 for the empty string', () => {
    expect(countTokens('')).toBe(0);
  });

  it('counts special-token text as plain characters instead of throwing', () => {
    const text = 'before <|endoftext|> after';
    expect(() => countTokens(text)).not.toThrow();
    expect(countTokens(text)).toBeGreaterThan(3);
  });

  it('counts a run without whitespace longer than 64 characters in 64-character pieces (BPE is quadratic in a run: 200,000 letters would take half a minute whole)', () => {
    expect(countTokens('a'.repeat(200_000))).toBe(3125 * encode('a'.repeat(64)).length);
    const mixed = `start ${'x'.repeat(130)} end`;
    expect(countTokens(mixed)).toBe(encode('start ').length + 2 * encode('x'.repeat(64)).length + encode('xx').length + encode(' end').length);
    // Ordinary text is counted whole, exactly as the encoder does.
    const prose = 'The gateway settles each hold after the call. '.repeat(200);
    expect(countTokens(prose)).toBe(encode(prose).length);
    const cut = truncateToTokens('b'.repeat(300_000), 10);
    expect(cut.length).toBeGreaterThan(0);
    expect('b'.repeat(300_000).startsWith(cut)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(10);
  });
});

describe('estimatePromptTokens (OpenAI cookbook framing)', () => {
  const frame = (role: string) => MESSAGE_OVERHEAD_TOKENS + countTokens(role);

  it('is 3 per message + role + content, + 3 for the reply priming', () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hello world' },
    ];
    const expected = frame('system') + countTokens('You are terse.') + frame('user') + countTokens('hello world') + REPLY_PRIMING_TOKENS;
    expect(estimatePromptTokens({ messages })).toBe(expected);
    expect(estimatePromptTokens({ messages: [{ role: 'user', content: 'hello world' }] })).toBe(3 + 1 + 2 + 3);
  });

  it('sums every text part and counts each image part as a fixed 765', () => {
    expect(IMAGE_PART_TOKENS).toBe(765);
    const messages = [{
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these pictures?' },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        { type: 'text', text: 'Be brief.' },
      ],
    }];
    const text = countTokens('What is in these pictures?') + countTokens('Be brief.');
    expect(estimatePromptTokens({ messages })).toBe(frame('user') + text + 2 * 765 + REPLY_PRIMING_TOKENS);
  });

  it('adds name (+1) and the text of tool calls', () => {
    const messages = [
      { role: 'user', name: 'alice', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '12 C' },
    ];
    const expected =
      frame('user') + 1 + countTokens('alice') + countTokens('weather?') +
      frame('assistant') + countTokens('get_weather') + countTokens('{"city":"Oslo"}') +
      frame('tool') + countTokens('12 C') + REPLY_PRIMING_TOKENS;
    expect(estimatePromptTokens({ messages })).toBe(expected);
  });

  it('tolerates any shape: junk costs the framing only; audio parts go by their decoded size', () => {
    expect(estimatePromptTokens({ messages: [] })).toBe(REPLY_PRIMING_TOKENS);
    expect(estimatePromptTokens({ messages: [null, 7, { content: 5 }] })).toBe(3 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS);
    const audioOf = (bytes: number) => [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'A'.repeat((bytes / 3) * 4), format: 'wav' } }] }];
    expect(estimatePromptTokens({ messages: audioOf(3) })).toBe(frame('user') + 1 + REPLY_PRIMING_TOKENS);
    expect(estimatePromptTokens({ messages: audioOf(3 * AUDIO_BYTES_PER_TOKEN * 100) })).toBe(frame('user') + 300 + REPLY_PRIMING_TOKENS);
  });

  it('counts tool, function and response-format definitions as the JSON the model reads', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const tools = [{ type: 'function', function: { name: 'lookup', description: 'Finds a record by id', parameters: { type: 'object', properties: { id: { type: 'string' } } } } }];
    const format = { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } } };
    const base = estimatePromptTokens({ messages });
    expect(estimatePromptTokens({ messages, tools })).toBe(base + countTokens(JSON.stringify(tools)));
    expect(estimatePromptTokens({ messages, tools, tool_choice: 'required', response_format: format })).toBe(
      base + countTokens(JSON.stringify(tools)) + countTokens('required') + countTokens(JSON.stringify(format)),
    );
    expect(estimatePromptTokens({ messages, functions: tools, function_call: { name: 'lookup' } })).toBe(
      base + countTokens(JSON.stringify(tools)) + countTokens('{"name":"lookup"}'),
    );
  });
});

describe('truncateToTokens', () => {
  const text = 'Sandbox reply (m): Every gateway keeps the ledger steady while the stream serves each request.';

  it('returns the text unchanged when it fits', () => {
    expect(truncateToTokens(text, 1000)).toBe(text);
  });

  it('returns a prefix that counts at most the cap', () => {
    for (const cap of [1, 3, 7, 12]) {
      const cut = truncateToTokens(text, cap);
      expect(text.startsWith(cut)).toBe(true);
      expect(countTokens(cut)).toBeLessThanOrEqual(cap);
      expect(cut.length).toBeGreaterThan(0);
    }
    expect(truncateToTokens(text, 0)).toBe('');
  });
});

describe('charsUpTo (what decides where text is tokenized)', () => {
  it('adds the strings at any depth, keys and numbers aside', () => {
    expect(charsUpTo({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], n: 2 }, 100)).toBe('user'.length + 'text'.length + 'hello'.length);
  });

  it('stops once past the limit, and walks a huge array without spreading it', () => {
    expect(charsUpTo(['abc', 'def', 'ghi'], 4)).toBeLessThanOrEqual(6);
    expect(charsUpTo([Array.from({ length: 500_000 }, () => 1), 'x'], 10)).toBe(1);
  });
});
