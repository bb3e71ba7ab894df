import { describe, expect, it } from 'vitest';
import {
  checkEmbeddingTokens,
  imageUrlProblem,
  validateChatMessages,
  validateContextWindow,
  validateEmbeddingInput,
  validateOutputCap,
  validateRerank,
} from '../../src/domain/text/chat-validation.js';
import { ApiError, type ErrorMeta } from '../../src/errors/api-error.js';
import type { ErrorCode } from '../../src/errors/catalog.js';
import { countTokens } from '../../src/lib/token-count.js';
import { catalogRow } from '../setup/catalog-rows.js';

const OPTS = { maxMessageChars: 100 };
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

function expectError(run: () => unknown, code: ErrorCode, message: string, meta: ErrorMeta): void {
  const error = thrown(run);
  expect({ code: error.code, message: error.message, meta: error.meta }).toEqual({ code, message, meta });
}

/** The meta of a finding about messages[index].<where>. */
function fieldMeta(
  code: ErrorCode,
  index: number,
  where: 'role' | 'content' | undefined,
  msg: string,
  extra: ErrorMeta = {},
): ErrorMeta {
  const loc: (string | number)[] = ['body', 'messages', index];
  if (where !== undefined) loc.push(where);
  return { ...extra, fields: [{ type: code, loc, msg, ctx: {} }] };
}

const user = (content: unknown) => ({ role: 'user', content });
const hello = user('hello');

describe('validateChatMessages: accepted shapes', () => {
  it('accepts every role and every part type', () => {
    const messages = [
      { role: 'system', content: 'Be terse.' },
      { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
      user([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'high' } },
        { type: 'image_url', image_url: { url: PNG } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ]),
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'assistant', content: 'Done.' },
    ];
    expect(() => validateChatMessages(messages, OPTS)).not.toThrow();
  });

  it('lets a tool-calling assistant turn omit content or send it empty', () => {
    const toolCalls = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }];
    for (const content of [undefined, null, '', []]) {
      expect(() =>
        validateChatMessages([hello, { role: 'assistant', content, tool_calls: toolCalls }], OPTS),
      ).not.toThrow();
    }
  });

  it('accepts an image with an empty text part beside it (the image is content)', () => {
    const parts = [
      { type: 'text', text: '' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
    ];
    expect(() => validateChatMessages([user(parts)], OPTS)).not.toThrow();
  });
});

describe('validateChatMessages: invalid_messages_format', () => {
  it('rejects an unknown role, naming the message', () => {
    const msg = 'unsupported role "robot"; use system, developer, user, assistant or tool';
    expectError(
      () => validateChatMessages([hello, hello, { role: 'robot', content: 'hi' }], OPTS),
      'invalid_messages_format',
      `messages[2].role: ${msg}`,
      fieldMeta('invalid_messages_format', 2, 'role', msg),
    );
  });

  it('rejects a message that is not an object', () => {
    expectError(
      () => validateChatMessages(['hello'], OPTS),
      'invalid_messages_format',
      'messages[0]: must be an object',
      fieldMeta('invalid_messages_format', 0, undefined, 'must be an object'),
    );
  });

  it('rejects content that is neither a string nor parts, and null outside tool-calling assistants', () => {
    const msg = 'must be a string or an array of parts (null only on an assistant message with tool_calls)';
    for (const message of [user(42), user(null), { role: 'user' }, { role: 'assistant', content: null }]) {
      expectError(
        () => validateChatMessages([hello, message], OPTS),
        'invalid_messages_format',
        `messages[1].content: ${msg}`,
        fieldMeta('invalid_messages_format', 1, 'content', msg),
      );
    }
  });

  it('requires content on a tool message', () => {
    const msg = 'a tool message needs content';
    expectError(
      () => validateChatMessages([{ role: 'tool', tool_call_id: 'c1' }], OPTS),
      'invalid_messages_format',
      `messages[0].content: ${msg}`,
      fieldMeta('invalid_messages_format', 0, 'content', msg),
    );
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'text', 'part 0: must be an object with a type'],
    [
      'unknown type',
      { type: 'video_url', video_url: { url: 'https://x/y.mp4' } },
      'part 0: unsupported part type "video_url"; use text, image_url or input_audio',
    ],
    ['text without text', { type: 'text', content: 'hi' }, 'part 0: a text part needs a string "text"'],
    [
      'image_url as a string',
      { type: 'image_url', image_url: 'https://x/y.png' },
      'part 0: an image_url part needs image_url: {url: string}',
    ],
    [
      'image detail',
      { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'ultra' } },
      'part 0: image_url.detail must be auto, low or high',
    ],
    [
      'audio without format',
      { type: 'input_audio', input_audio: { data: 'UklGRg==' } },
      'part 0: an input_audio part needs input_audio: {data: string, format: string}',
    ],
  ])('rejects a malformed part: %s', (_name, part, msg) => {
    expectError(
      () => validateChatMessages([user([part])], OPTS),
      'invalid_messages_format',
      `messages[0].content: ${msg}`,
      fieldMeta('invalid_messages_format', 0, 'content', msg),
    );
  });

  it('accepts images only from the user', () => {
    const msg = 'part 1: image_url parts are accepted only in user messages';
    const system = {
      role: 'system',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image_url', image_url: { url: PNG } },
      ],
    };
    expectError(
      () => validateChatMessages([system], OPTS),
      'invalid_messages_format',
      `messages[0].content: ${msg}`,
      fieldMeta('invalid_messages_format', 0, 'content', msg),
    );
  });
});

describe('validateChatMessages: empty_message_content (SPEC 7.2)', () => {
  const msg = 'must not be empty or whitespace-only';

  it.each<[string, unknown]>([
    ['empty string', ''],
    ['whitespace', ' \n\t\u00a0'],
    ['no parts', []],
    [
      'blank text parts',
      [
        { type: 'text', text: '  ' },
        { type: 'text', text: '' },
      ],
    ],
  ])('rejects %s', (_name, content) => {
    expectError(
      () => validateChatMessages([hello, user(content)], OPTS),
      'empty_message_content',
      `messages[1].content: ${msg}`,
      fieldMeta('empty_message_content', 1, 'content', msg),
    );
  });

  it('rejects an empty assistant turn that calls no tool', () => {
    expectError(
      () => validateChatMessages([{ role: 'assistant', content: ' ' }], OPTS),
      'empty_message_content',
      `messages[0].content: ${msg}`,
      fieldMeta('empty_message_content', 0, 'content', msg),
    );
  });

  it('accepts content with one visible character', () => {
    expect(() => validateChatMessages([user(' x ')], OPTS)).not.toThrow();
  });
});

describe('validateChatMessages: message_too_long', () => {
  const opts = { maxMessageChars: 10 };
  const msg = 'longer than 10 characters';

  it('rejects a message over the limit with meta.limit', () => {
    expectError(
      () => validateChatMessages([hello, user('a'.repeat(11))], opts),
      'message_too_long',
      `messages[1].content: ${msg}`,
      fieldMeta('message_too_long', 1, 'content', msg, { limit: 10 }),
    );
  });

  it('counts the text parts of one message together', () => {
    const parts = [
      { type: 'text', text: 'abcdef' },
      { type: 'text', text: 'ghijk' },
    ];
    expectError(
      () => validateChatMessages([user(parts)], opts),
      'message_too_long',
      `messages[0].content: ${msg}`,
      fieldMeta('message_too_long', 0, 'content', msg, { limit: 10 }),
    );
  });

  it('accepts exactly the limit, counted in characters (an emoji is one)', () => {
    expect(() => validateChatMessages([user('a'.repeat(10))], opts)).not.toThrow();
    expect(() => validateChatMessages([user('😀'.repeat(10))], opts)).not.toThrow();
    expect(() => validateChatMessages([user('😀'.repeat(11))], opts)).toThrow(ApiError);
  });

  it('does not count image data toward the limit', () => {
    const parts = [
      { type: 'text', text: 'hi' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(400)}` } },
    ];
    expect(() => validateChatMessages([user(parts)], opts)).not.toThrow();
  });
});

describe('validateChatMessages: invalid_image_payload (SPEC 7.2; nothing is fetched)', () => {
  const imageMessage = (url: string) =>
    user([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url } },
    ]);

  it.each<[string, string, string]>([
    [
      'another MIME type',
      'data:image/bmp;base64,Qk0=',
      'a data URI must be data:image/(png|jpeg|gif|webp);base64,<data>',
    ],
    [
      'not base64-encoded',
      'data:image/png,rawbytes',
      'a data URI must be data:image/(png|jpeg|gif|webp);base64,<data>',
    ],
    ['bad characters', 'data:image/png;base64,iVBOR*0KGgo=', 'the embedded image is not valid base64'],
    ['missing padding', 'data:image/jpeg;base64,QUJ', 'the embedded image is not valid base64'],
    ['non-zero padding bits', 'data:image/gif;base64,QR==', 'the embedded image is not valid base64'],
    ['padding in the middle', 'data:image/webp;base64,QQ==QUJD', 'the embedded image is not valid base64'],
    ['empty payload', 'data:image/png;base64,', 'the embedded image is not valid base64'],
    ['not a URL', 'cat.png', 'image_url.url must be an http(s) URL or a data URI'],
    ['another scheme', 'ftp://example.com/cat.png', 'image_url.url must be an http(s) URL or a data URI'],
    ['file URL', 'file:///etc/passwd', 'image_url.url must be an http(s) URL or a data URI'],
  ])('rejects %s', (_name, url, problem) => {
    const msg = `part 1: ${problem}`;
    expectError(
      () => validateChatMessages([hello, hello, imageMessage(url)], OPTS),
      'invalid_image_payload',
      `messages[2].content: ${msg}`,
      fieldMeta('invalid_image_payload', 2, 'content', msg),
    );
  });

  it.each([
    'https://example.com/cat.png?size=large',
    'http://localhost:8080/a.jpg',
    PNG,
    'data:image/jpeg;base64,QUJD',
    'data:image/webp;base64,QUI=',
    'data:image/gif;base64,QQ==',
  ])('accepts %s', (url) => {
    expect(imageUrlProblem(url)).toBeNull();
    expect(() => validateChatMessages([imageMessage(url)], OPTS)).not.toThrow();
  });
});

describe('validateOutputCap and validateContextWindow (SPEC 2.5 capabilities, 7.2)', () => {
  const entry = catalogRow({
    slug: 'txt',
    media_kind: 'text',
    capabilities: { context_tokens: 1000, max_output_tokens: 100 },
  });

  it('rejects max_tokens above the output cap with meta.max_tokens', () => {
    expectError(
      () => validateOutputCap(entry, 101),
      'invalid_max_tokens',
      'max_tokens: 101 is above the output cap of txt (100)',
      { max_tokens: 100 },
    );
    expect(() => validateOutputCap(entry, 100)).not.toThrow();
  });

  it('rejects prompt + max_tokens above the context window with meta.limit and meta.prompt_tokens', () => {
    expectError(
      () => validateContextWindow(entry, { promptTokens: 901, maxTokens: 100 }),
      'context_window_exceeded',
      "This model's maximum context length is 1000 tokens. However, you requested 1001 tokens (901 in the messages, 100 in the completion). Please reduce the length of the messages or completion.",
      { limit: 1000, prompt_tokens: 901 },
    );
    expect(() => validateContextWindow(entry, { promptTokens: 900, maxTokens: 100 })).not.toThrow();
  });

  it('checks the prompt alone when max_tokens is not sent', () => {
    expectError(
      () => validateContextWindow(entry, { promptTokens: 1001 }),
      'context_window_exceeded',
      "This model's maximum context length is 1000 tokens. However, you requested 1001 tokens in the messages. Please reduce the length of the messages or completion.",
      { limit: 1000, prompt_tokens: 1001 },
    );
    expect(() => validateContextWindow(entry, { promptTokens: 1000, maxTokens: undefined })).not.toThrow();
  });

  it('does not check caps a row does not publish', () => {
    const bare = catalogRow({ slug: 'bare', media_kind: 'text' });
    expect(() => validateContextWindow(bare, { promptTokens: 10_000_000, maxTokens: 1_000_000 })).not.toThrow();
    expect(() => validateOutputCap(bare, 1_000_000)).not.toThrow();
  });
});

describe('validateEmbeddingInput (SPEC 2.1, 2.9, 8)', () => {
  const small = catalogRow({
    slug: 'text-embedding-3-small',
    media_kind: 'embedding',
    capabilities: { max_input_items: 3, max_input_tokens: 5, embedding_dimensions: 1536, accepts_dimensions: true },
  });
  const ada = catalogRow({
    slug: 'text-embedding-ada-002',
    media_kind: 'embedding',
    capabilities: {
      max_input_items: 2048,
      max_input_tokens: 8191,
      embedding_dimensions: 1536,
      accepts_dimensions: false,
    },
  });

  it('checkEmbeddingTokens returns each input token count: text as counted, token ids as given', () => {
    expect(checkEmbeddingTokens(small, ['hello world', 'one'], [2, 1])).toEqual([2, 1]);
    expect(
      checkEmbeddingTokens(
        { ...small, capabilities: { ...small.capabilities, token_vocabulary: 100 } },
        ['hello', [1, 2, 3]],
        [1, 0],
      ),
    ).toEqual([1, 3]);
  });

  it('answers dimensions_unsupported on a model that does not accept it', () => {
    expectError(
      () => validateEmbeddingInput(ada, ['hi'], 512),
      'dimensions_unsupported',
      'dimensions: text-embedding-ada-002 always returns its native size; omit dimensions',
      { slug: 'text-embedding-ada-002' },
    );
    expect(() => validateEmbeddingInput(ada, ['hi'])).not.toThrow();
  });

  it('answers dimensions_unsupported above the native size; the native size itself is accepted, as OpenAI does', () => {
    for (const dimensions of [1537, 3072]) {
      expectError(
        () => validateEmbeddingInput(small, ['hi'], dimensions),
        'dimensions_unsupported',
        'dimensions: must be at most 1536, the native size of text-embedding-3-small',
        { slug: 'text-embedding-3-small', hint: 'send 1 to 1536, or omit dimensions for 1536' },
      );
    }
    expect(() => validateEmbeddingInput(small, ['hi'], 1535)).not.toThrow();
    expect(() => validateEmbeddingInput(small, ['hi'], 1536)).not.toThrow();
  });

  it('answers invalid_request naming input when there are too many inputs', () => {
    const msg = '4 inputs; text-embedding-3-small takes at most 3 per request';
    expectError(() => validateEmbeddingInput(small, ['a', 'b', 'c', 'd']), 'invalid_request', `body.input: ${msg}`, {
      fields: [{ type: 'maxItems', loc: ['body', 'input'], msg, ctx: {} }],
    });
  });

  it('answers invalid_request naming input[i] when one input has too many tokens', () => {
    const long = 'one two three four five six seven';
    const tokens = countTokens(long);
    const msg = `${tokens} tokens; text-embedding-3-small takes at most 5 per input`;
    expectError(
      () => checkEmbeddingTokens(small, ['ok', long], ['ok', long].map(countTokens)),
      'invalid_request',
      `input[1]: ${msg}`,
      { limit: 5, fields: [{ type: 'maxTokens', loc: ['body', 'input', 1], msg, ctx: { limit: 5 } }] },
    );
  });

  it('answers input_required for no inputs', () => {
    expect(thrown(() => validateEmbeddingInput(small, [])).code).toBe('input_required');
  });
});

describe('validateRerank (SPEC 2.3, 7.2)', () => {
  const entry = catalogRow({ slug: 'rr', media_kind: 'rerank', capabilities: { max_input_items: 2 } });

  it('answers input_required for a blank query', () => {
    const msg = 'must not be empty or whitespace-only';
    expectError(() => validateRerank(entry, ' \n', ['doc']), 'input_required', `query: ${msg}`, {
      fields: [{ type: 'input_required', loc: ['body', 'query'], msg, ctx: {} }],
    });
  });

  it('answers input_required when no document has text', () => {
    const msg = 'at least one document must have text';
    for (const documents of [[], ['', '  ']]) {
      expectError(() => validateRerank(entry, 'q', documents), 'input_required', `documents: ${msg}`, {
        fields: [{ type: 'input_required', loc: ['body', 'documents'], msg, ctx: {} }],
      });
    }
  });

  it('accepts blank documents beside real ones', () => {
    expect(() => validateRerank(entry, 'q', ['', 'text'])).not.toThrow();
  });

  it('answers invalid_request naming documents above the row cap', () => {
    const msg = '3 documents; rr takes at most 2 per request';
    expectError(() => validateRerank(entry, 'q', ['a', 'b', 'c']), 'invalid_request', `body.documents: ${msg}`, {
      fields: [{ type: 'maxItems', loc: ['body', 'documents'], msg, ctx: {} }],
    });
  });
});
