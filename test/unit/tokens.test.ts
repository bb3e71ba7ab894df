import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import {
  IMAGE_PART_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  countCompletionText,
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

  it('countCompletionText counts the same way', () => {
    expect(countCompletionText('The quick brown fox.')).toBe(countTokens('The quick brown fox.'));
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
    expect(estimatePromptTokens(messages)).toBe(expected);
    expect(estimatePromptTokens([{ role: 'user', content: 'hello world' }])).toBe(3 + 1 + 2 + 3);
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
    expect(estimatePromptTokens(messages)).toBe(frame('user') + text + 2 * 765 + REPLY_PRIMING_TOKENS);
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
    expect(estimatePromptTokens(messages)).toBe(expected);
  });

  it('tolerates any shape: junk costs the framing only; audio parts are not estimated', () => {
    expect(estimatePromptTokens([])).toBe(REPLY_PRIMING_TOKENS);
    expect(estimatePromptTokens([null, 7, { content: 5 }])).toBe(3 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS);
    const audio = [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }];
    expect(estimatePromptTokens(audio)).toBe(frame('user') + REPLY_PRIMING_TOKENS);
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
