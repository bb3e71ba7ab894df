/**
 * SPEC 7.2 invalid_image_payload, "URL unreachable" (issue 24 item 6): an image link in a chat message is loaded
 * through the SSRF-safe loader before anything is held, on every chat surface; a link that cannot be loaded, or
 * that is not an image, is 400 invalid_image_payload naming the part, with nothing held or charged. A caller who
 * cannot pay the request's floor is refused before any link is fetched.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPortUrl } from '../fixtures/fake-upstream.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
let images: Server;
let origin: string;
/** Paths the image host was asked for, in order. */
const fetched: string[] = [];

beforeAll(async () => {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  images = createServer((req, res) => {
    fetched.push(req.url ?? '');
    if (req.url === '/cat.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (req.url === '/page.html')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a view page</html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => images?.close(resolve));
});

const PATH = '/v1/compat/chat/completions';
const withImage = (url: string) => [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in the picture?' },
      { type: 'image_url', image_url: { url } },
    ],
  },
];

async function expectNothingHeldOrCharged(accountId: string): Promise<void> {
  expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
}

describe.each(HARNESS_DATABASES)('image links in chat messages on $name', (database) => {
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await database.open();
    drop = opened.drop;
    h = await startHarness({ ...opened.env, MEDIA_FETCH_ALLOW: '127.0.0.1' });
  });
  afterAll(async () => {
    await h?.close();
    await drop?.();
  });

  it('a link to an image is loaded and the chat answered', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const response = await call(h.baseUrl, 'POST', PATH, {
      key: apiKey,
      body: { model: 'gpt-4o-mini', messages: withImage(`${origin}/cat.png`) },
    });
    expect(response.status, response.text).toBe(200);
  });

  it.each([
    ['a 404', () => `${origin}/missing.png`, /could not be loaded \(127\.0\.0\.1:\d+ answered 404\)/],
    ['a closed port', async () => `${await closedPortUrl()}/cat.png`, /could not be loaded/],
    ['a page, not an image', () => `${origin}/page.html`, /not a PNG, JPEG, GIF or WebP image/],
    ['a metadata address (SSRF policy)', () => 'http://169.254.169.254/latest/meta-data/', /could not be loaded/],
  ])(
    '%s → 400 invalid_image_payload naming the part, with a hint; nothing held or charged',
    async (_name, link, reason) => {
      const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
      const response = await call(h.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: 'gpt-4o-mini', messages: withImage(await link()) },
      });
      expectCompatError(response, 400, 'invalid_image_payload');
      expect(response.body.error.message).toMatch(/^messages\[1\]\.content: part 1: /);
      expect(response.body.error.message).toMatch(reason);
      expect(response.body.error.meta.hint).toMatch(/direct-download link/);
      await expectNothingHeldOrCharged(accountId);
    },
  );

  it('the same verdict on a stream (a JSON 400, before the stream opens), the native surface and the Responses API', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const missing = `${origin}/missing.png`;
    expectCompatError(
      await call(h.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: 'gpt-4o-mini', messages: withImage(missing), stream: true },
      }),
      400,
      'invalid_image_payload',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/chat/completions', {
        key: apiKey,
        body: { model: 'gpt-4o-mini', messages: withImage(missing) },
      }),
      400,
      'invalid_image_payload',
    );
    const responses = await call(h.baseUrl, 'POST', '/v1/responses', {
      key: apiKey,
      body: {
        model: 'gpt-4o-mini',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is it?' },
              { type: 'input_image', image_url: missing },
            ],
          },
        ],
      },
    });
    expect(responses.status, responses.text).toBe(400);
    expect(responses.body.error.code).toBe('invalid_image_payload');
    await expectNothingHeldOrCharged(accountId);
  });

  it('a caller who cannot pay is refused 402 before the link is fetched', async () => {
    const { apiKey } = await h.newAccount();
    const before = fetched.length;
    const response = await call(h.baseUrl, 'POST', PATH, {
      key: apiKey,
      body: { model: 'gpt-4o-mini', messages: withImage(`${origin}/cat.png?broke`) },
    });
    expectCompatError(response, 402, 'insufficient_balance');
    expect(fetched.slice(before)).toEqual([]);
  });
});
