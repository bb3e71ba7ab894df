/**
 * POST /v1/llm/images/generations (SPEC 2.11, 4.4) on the embedded sandbox:
 * real files (decoded here with sharp), re-encoded to `output_format`, hosted behind working links, charged what
 * the estimate said; the failures cost nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const NATIVE = '/v1/llm/images/generations';

describe('POST /v1/llm/images/generations', () => {
  it('imgG-2 at 1536x1024, two WebP images: decodable, alpha kept, hosted, charged exactly the estimate', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'imgG-2', prompt: 'A lighthouse at dawn', size: '1536x1024', n: 2, output_format: 'webp' };
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/images/jobs/estimate', { key: apiKey, body }),
    );
    const result = expectNativeOk(await call(h.baseUrl, 'POST', NATIVE, { key: apiKey, body }));
    expect(result.usage).toEqual({
      model: 'imgG-2-2k',
      images: 2,
      size: '1536x1024',
      aspect_ratio: '3:2',
      output_format: 'webp',
      cost: estimate.discounted_cost_usd,
    });
    expect(result.data).toHaveLength(2);
    for (const image of result.data) {
      expect(image.mime_type).toBe('image/webp');
      const bytes = Buffer.from(image.b64_json, 'base64');
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['webp', 1536, 1024, true]);
      const hosted = await fetchHosted(h, image.url);
      expect(hosted.type).toBe('image/webp');
      expect(hosted.bytes.equals(bytes)).toBe(true);
    }
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(estimate.discounted_cost_usd));
  });

  it('jpeg (alias jpg): alpha flattened onto white; png passes through; response_format url leaves out b64_json', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const jpeg = expectNativeOk(
      await call(h.baseUrl, 'POST', NATIVE, {
        key: apiKey,
        body: { model: 'imgG-4o', prompt: 'Fog', output_format: 'jpg' },
      }),
    );
    expect(jpeg.usage).toMatchObject({ output_format: 'jpeg', aspect_ratio: '1:1', size: '1024x1024' });
    const decoded = sharp(Buffer.from(jpeg.data[0].b64_json, 'base64'));
    expect((await decoded.metadata()).hasAlpha).toBe(false);
    const { data } = await decoded.raw().toBuffer({ resolveWithObject: true });
    const png = expectNativeOk(
      await call(h.baseUrl, 'POST', NATIVE, { key: apiKey, body: { model: 'imgG-4o', prompt: 'Fog' } }),
    );
    const source = await sharp(Buffer.from(png.data[0].b64_json, 'base64')).raw().toBuffer({ resolveWithObject: true });
    expect(source.info.channels).toBe(4);
    // Half-transparent colour c over white is (c + 255) / 2, within JPEG's rounding.
    for (const channel of [0, 1, 2])
      expect(Math.abs(data[channel]! - (source.data[channel]! * 0.5 + 127.5))).toBeLessThanOrEqual(4);
    const linked = expectNativeOk(
      await call(h.baseUrl, 'POST', NATIVE, {
        key: apiKey,
        body: { model: 'imgG-4o', prompt: 'Fog', response_format: 'url' },
      }),
    );
    expect(linked.data[0]).toEqual({ url: expect.stringContaining('/v1/files/'), mime_type: 'image/png' });
  });

  it('a size beyond what the billed tier makes is shrunk to it, aspect kept (never paid at one tier and rendered at a larger one)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const result = expectNativeOk(
      await call(h.baseUrl, 'POST', NATIVE, {
        key: apiKey,
        body: { model: 'flux-2-pro', prompt: 'Dunes', size: '9000x4500' },
      }),
    );
    expect(result.usage).toMatchObject({ model: 'flux-2-pro', size: '2048x1024', aspect_ratio: '16:9' });
    const meta = await sharp(Buffer.from(result.data[0].b64_json, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([2048, 1024]);
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', NATIVE, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'imgG-4o', prompt: 'Fog', response_format: 'url' };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, prompt: 'Rain' } },
      'native',
      200,
    );
    // Rendered and charged once: the replay cost nothing.
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(expectNativeOk(firstAnswer).usage.cost));
  });

  it('402 insufficient_balance from a $0 key, nothing charged; an edit-only model without a reference: upstream_validation_error', async () => {
    const broke = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', NATIVE, { key: broke.apiKey, body: { model: 'imgG-2', prompt: 'x' } }),
      402,
      'insufficient_balance',
    );
    expect(await h.deps.ledger.postedSpend(broke.accountId)).toBe(0n);
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectNativeError(
      await call(h.baseUrl, 'POST', NATIVE, { key: apiKey, body: { model: 'flux-fill-pro', prompt: 'x' } }),
      400,
      'upstream_validation_error',
    );
  });
});

describe('an over-long prompt (SPEC 2.11)', () => {
  it('is 400 upstream_validation_error with a hint naming the prompt and its limit, on every image surface; nothing held', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'imgG-2', prompt: 'x'.repeat(32_001) };
    for (const path of [
      NATIVE,
      '/v1/compat/images/generations',
      '/v1/llm/images/jobs',
      '/v1/llm/images/jobs/estimate',
    ]) {
      const response = await call(h.baseUrl, 'POST', path, { key: apiKey, body });
      const error = path.startsWith('/v1/compat') ? response.body.error : response.body.data;
      expect({ path, status: response.status, code: error.code ?? error.error_code }).toEqual({
        path,
        status: 400,
        code: 'upstream_validation_error',
      });
      expect(error.meta.hint).toMatch(/prompt.*32000 characters/);
    }
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 1_000_000n });
  });
});

describe('reference images (edit mode)', () => {
  let red: Buffer;
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    red = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 255, g: 0, b: 0 } } })
      .png()
      .toBuffer();
    server = createServer(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(red),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const edit = (key: string, reference: string) =>
    call(h.baseUrl, 'POST', NATIVE, {
      key,
      body: { model: 'flux-fill-pro', prompt: 'Paint it', input_images: [reference] },
    });

  it('a data URI reference: hosted by us with its sniffed type, read by the model (the sandbox paints its colour)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const response = await edit(apiKey, `data:image/jpeg;base64,${red.toString('base64')}`); // the declared type is wrong on purpose
    const result = expectNativeOk(response);
    const hosted = await h.deps.blobs.get(`${response.headers.get('x-request-id')}-ref-0.png`, h.deps.now());
    expect(hosted?.meta.contentType).toBe('image/png');
    expect(hosted?.bytes.equals(red)).toBe(true);
    const { data } = await sharp(Buffer.from(result.data[0].b64_json, 'base64'))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([data[0]! > 200, data[1]! < 60, data[2]! < 60]).toEqual([true, true, true]);
  });

  it('a reference of 16000² pixels is refused from its header before it is hosted or sent; nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const giant = Buffer.from(red);
    giant.writeUInt32BE(16_000, 16); // IHDR width and height; the CRC after them covers the chunk type and its data
    giant.writeUInt32BE(16_000, 20);
    giant.writeUInt32BE(crc32(giant.subarray(12, 29)), 29);
    const response = await edit(apiKey, giant.toString('base64'));
    expectNativeError(response, 400, 'upstream_validation_error');
    expect(response.body.data.meta).toMatchObject({
      field: 'input_images[0]',
      hint: expect.stringMatching(/smaller image/),
    });
    expect(response.body.data.error).toContain('16000×16000');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('unusable references: 400 upstream_validation_error naming the reference, with a hint; nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    for (const [reference, hint] of [
      ['not base64!', /data URI/],
      [Buffer.from('plain text, not pixels').toString('base64'), /PNG, JPEG/],
      [`${origin}/red.png`, /public, direct-download/], // loopback: refused by the SSRF policy of this gateway
      ['http://169.254.169.254/latest/meta-data/', /public, direct-download/],
    ] as const) {
      const response = await edit(apiKey, reference);
      expectNativeError(response, 400, 'upstream_validation_error');
      expect(response.body.data.meta).toMatchObject({ field: 'input_images[0]', hint: expect.stringMatching(hint) });
    }
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('a link to an allow-listed address is fetched (MEDIA_FETCH_ALLOW)', async () => {
    const allowing = await startHarness({ MEDIA_FETCH_ALLOW: '127.0.0.1' });
    try {
      const { apiKey } = await allowing.newAccount(undefined, { balanceUsd: 1 });
      const response = await call(allowing.baseUrl, 'POST', NATIVE, {
        key: apiKey,
        body: { model: 'flux-fill-pro', prompt: 'Paint it', input_images: [`${origin}/red.png`] },
      });
      expect(expectNativeOk(response).usage.images).toBe(1);
    } finally {
      await allowing.close();
    }
  });
});
