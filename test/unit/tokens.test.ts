import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { describe, expect, it } from 'vitest';
import {
  AUDIO_BYTES_PER_TOKEN,
  charsUpTo,
  countedParts,
  countTokens,
  estimatePromptTokens,
  MAX_PRETOKEN_CHARS,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  truncateToTokens,
} from '../../src/domain/text/token-counting.js';

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

  it('counts ordinary text whole, exactly as the encoder does, and a long run in pieces that still fit a truncation', () => {
    const prose = 'The gateway settles each hold after the call.\n\tIt never  waits for   the write. '.repeat(200);
    expect(countedParts(prose)).toBeNull();
    expect(countTokens(prose)).toBe(encode(prose).length);
    expect(countTokens('a'.repeat(200_000))).toBe(3125 * encode('a'.repeat(64)).length);
    const cut = truncateToTokens('b'.repeat(300_000), 10);
    expect(cut.length).toBeGreaterThan(0);
    expect('b'.repeat(300_000).startsWith(cut)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(10);
  });
});

/** Deterministic pseudo-random characters drawn from `alphabet` (a property test that cannot flake). */
function randomText(alphabet: readonly string[], length: number, seed: number): string {
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (state * 48_271) % 2_147_483_647;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

/** The pieces of `text` that reach BPE: the encoder's own pre-tokenizer run over each part countTokens hands it. */
function preTokens(text: string): string[] {
  return (countedParts(text) ?? [text]).flatMap((part) => [...part.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0]));
}

describe('counting is linear whatever the characters (issue: no pre-token reaches BPE longer than a fixed cap)', () => {
  // Every class the pre-tokenizer keeps together, and mixes of them: the quadratic cases found, and their cousins.
  const classes: Record<string, string[]> = {
    'Latin lower': ['a'],
    'Latin upper': ['Q'],
    'camel case': ['a', 'B'],
    digits: ['7'],
    spaces: [' '],
    NBSP: ['\u00a0'],
    'em space U+2003': ['\u2003'],
    'ideographic space U+3000': ['\u3000'],
    tabs: ['\t'],
    newlines: ['\n'],
    CRLF: ['\r\n'],
    'line separator U+2028': ['\u2028'],
    'zero-width no-break U+FEFF': ['\ufeff'],
    'mixed whitespace': [' ', '\u00a0', '\u2003', '\u3000', '\t', '\n', '\r', '\u205f', '\u1680'],
    'CJK ideographs': ['数', '据', '中', '心'],
    Thai: ['ก', 'ข', 'ค'],
    'combining marks': ['\u0301', '\u0308'],
    'letter + mark': ['e\u0301'],
    emoji: ['👋', '🚀'],
    punctuation: ['!', '?', '.', '#'],
    'punctuation then newlines': ['!', '\n', '/'],
    'space before punctuation': [' ', '!'],
    contractions: ["'s", 'a'],
    'everything at random': [
      'a',
      'Z',
      '7',
      ' ',
      '\u3000',
      '\u00a0',
      '\n',
      '!',
      '/',
      '数',
      '\u0301',
      '👋',
      "'",
      '\t',
      'é',
    ],
  };

  for (const [name, alphabet] of Object.entries(classes)) {
    it(`${name}: the longest pre-token is at most ${MAX_PRETOKEN_CHARS} characters, and BPE work is at most that per character`, () => {
      for (const length of [1_000, 10_000, 100_000]) {
        const text =
          alphabet.length === 1
            ? alphabet[0]!.repeat(length / alphabet[0]!.length)
            : randomText(alphabet, length, length + alphabet.length);
        const pieces = preTokens(text);
        expect(pieces.join('').length).toBe(text.length); // every character is counted, none twice
        expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(MAX_PRETOKEN_CHARS);
        // BPE merges a piece in time up to the square of its length: the sum of squares bounds the work.
        const work = pieces.reduce((sum, p) => sum + p.length * p.length, 0);
        expect(work).toBeLessThanOrEqual(MAX_PRETOKEN_CHARS * text.length);
      }
    });
  }

  it('the whitespace test is the one the pre-tokenizer uses (\\s), for every BMP character', () => {
    const cut = 'x'.repeat(MAX_PRETOKEN_CHARS * 2);
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCharCode(code);
      // A run of x cut by this character is counted whole exactly when the character is a pre-token start.
      const starts = /\s/.test(char) && char !== '\n' && char !== '\r';
      expect(countedParts(`${cut.slice(0, 60)}${char}${cut.slice(0, 60)}`) === null, `U+${code.toString(16)}`).toBe(
        starts,
      );
    }
  });
});

describe('estimatePromptTokens (OpenAI cookbook framing)', () => {
  const frame = (role: string) => MESSAGE_OVERHEAD_TOKENS + countTokens(role);

  it('is 3 per message + role + content, + 3 for the reply priming', () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hello world' },
    ];
    const expected =
      frame('system') +
      countTokens('You are terse.') +
      frame('user') +
      countTokens('hello world') +
      REPLY_PRIMING_TOKENS;
    expect(estimatePromptTokens({ messages })).toBe(expected);
    expect(estimatePromptTokens({ messages: [{ role: 'user', content: 'hello world' }] })).toBe(3 + 1 + 2 + 3);
  });

  it('sums every text part; image parts are left to the image rule of the model (image-tokens.ts)', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these pictures?' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'text', text: 'Be brief.' },
        ],
      },
    ];
    const text = countTokens('What is in these pictures?') + countTokens('Be brief.');
    expect(estimatePromptTokens({ messages })).toBe(frame('user') + text + REPLY_PRIMING_TOKENS);
  });

  it('adds name (+1) and the text of tool calls', () => {
    const messages = [
      { role: 'user', name: 'alice', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '12 C' },
    ];
    const expected =
      frame('user') +
      1 +
      countTokens('alice') +
      countTokens('weather?') +
      frame('assistant') +
      countTokens('get_weather') +
      countTokens('{"city":"Oslo"}') +
      frame('tool') +
      countTokens('12 C') +
      REPLY_PRIMING_TOKENS;
    expect(estimatePromptTokens({ messages })).toBe(expected);
  });

  it('tolerates any shape: junk costs the framing only; audio parts go by their decoded size', () => {
    expect(estimatePromptTokens({ messages: [] })).toBe(REPLY_PRIMING_TOKENS);
    expect(estimatePromptTokens({ messages: [null, 7, { content: 5 }] })).toBe(
      3 * MESSAGE_OVERHEAD_TOKENS + REPLY_PRIMING_TOKENS,
    );
    const audioOf = (bytes: number) => [
      {
        role: 'user',
        content: [{ type: 'input_audio', input_audio: { data: 'A'.repeat((bytes / 3) * 4), format: 'wav' } }],
      },
    ];
    expect(estimatePromptTokens({ messages: audioOf(3) })).toBe(frame('user') + 1 + REPLY_PRIMING_TOKENS);
    expect(estimatePromptTokens({ messages: audioOf(3 * AUDIO_BYTES_PER_TOKEN * 100) })).toBe(
      frame('user') + 300 + REPLY_PRIMING_TOKENS,
    );
  });

  it('counts tool, function and response-format definitions as the JSON the model reads', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const tools = [
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Finds a record by id',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
        },
      },
    ];
    const format = {
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } },
    };
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
    expect(charsUpTo({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], n: 2 }, 100)).toBe(
      'user'.length + 'text'.length + 'hello'.length,
    );
  });

  it('stops once past the limit, and walks a huge array without spreading it', () => {
    expect(charsUpTo(['abc', 'def', 'ghi'], 4)).toBeLessThanOrEqual(6);
    expect(charsUpTo([Array.from({ length: 500_000 }, () => 1), 'x'], 10)).toBe(1);
  });
});
