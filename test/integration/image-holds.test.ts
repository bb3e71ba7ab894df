/**
 * Holds cover what the vendor bills for images (issue 23, item 1), on SQLite and PostgreSQL: a local upstream bills
 * image parts as OpenAI documents (512-px tiles after fitting 2048² and a 768-px shortest side; gpt-4o-mini at
 * 2,833 + 5,667 a tile; `detail: low` = the base) and the caller's charge equals that bill to the micro-dollar, with
 * no loss, whatever the image's size or detail. A model whose rule the catalog lacks, billed above the default, is
 * charged up to its hold with the loss posted and alerted, and the next request of that shape is held at the size
 * the upstream reported, so it is charged the whole bill.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textCost } from '../../src/domain/pricing/index.js';
import { isRecord } from '../../src/lib/is-record.js';
import { estimatePromptTokens } from '../../src/lib/token-count.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const TILED = 'gpt-4o-mini';
/** A vision row without an image rule in the catalog (held at the default), whose vendor bills more. */
const UNRULED = 'qwen2-5-vl-72b-instruct';
const UNRULED_BILL_PER_IMAGE = 6_000;

/** The image links the test sends, served by `imageHost` (the gateway loads every link before the hold). */
const LINKED = {
  'square-1024.png': [1024, 1024],
  'wide-2048x768.png': [2048, 768],
  'poster-4096x8192.png': [4096, 8192],
} as const;
let imageOrigin = '';
const link = (name: keyof typeof LINKED) => `${imageOrigin}/${name}`;
/** What the images the test sends measure, by link or data URI: the upstream "fetches" or decodes them. */
const SIZES = new Map<string, { width: number; height: number }>();

/**
 * A PNG's signature and header chunk, stating a size: all the gateway reads of a link (and the fake vendor reads
 * nothing), so a 4096×8192 image costs 33 bytes here.
 */
function pngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.set([8, 2, 0, 0, 0], 24);
  return header;
}

let imageHost: Server;
beforeAll(async () => {
  imageHost = createServer((req, res) => {
    const size = LINKED[(req.url ?? '').slice(1) as keyof typeof LINKED];
    if (size === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(pngHeader(size[0], size[1]));
  });
  await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
  imageOrigin = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}`;
  for (const [name, [width, height]] of Object.entries(LINKED))
    SIZES.set(link(name as keyof typeof LINKED), { width, height });
});
afterAll(async () => {
  await new Promise((resolve) => imageHost?.close(resolve));
});

/** OpenAI's published image rule (vision guide, "Calculating costs"), written out here on its own. */
function openAiImageTokens(url: string, detail: unknown, base: number, perTile: number): number {
  if (detail === 'low') return base;
  let { width, height } = SIZES.get(url)!;
  if (Math.max(width, height) > 2048)
    [width, height] = [width, height].map((side) => Math.floor((side * 2048) / Math.max(width, height))) as [
      number,
      number,
    ];
  if (Math.min(width, height) > 768)
    [width, height] = [width, height].map((side) => Math.floor((side * 768) / Math.min(width, height))) as [
      number,
      number,
    ];
  return base + Math.ceil(width / 512) * Math.ceil(height / 512) * perTile;
}

/** The vendor's bill: the text as o200k counts it, plus every image part by the model's rule. */
function vendorUsage(body: Record<string, unknown>) {
  let images = 0;
  for (const message of body.messages as { content: unknown }[]) {
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (!isRecord(part) || part.type !== 'image_url' || !isRecord(part.image_url)) continue;
      const { url, detail } = part.image_url as { url: string; detail?: string };
      images += String(body.model).endsWith(TILED)
        ? openAiImageTokens(url, detail, 2833, 5667)
        : UNRULED_BILL_PER_IMAGE;
    }
  }
  return { promptTokens: estimatePromptTokens(body) + images, completionTokens: 1 };
}

const ask = (...parts: unknown[]) => [
  { role: 'user', content: [{ type: 'text', text: 'What is in these pictures?' }, ...parts] },
];
const image = (url: string, detail?: string) => ({
  type: 'image_url',
  image_url: { url, ...(detail === undefined ? {} : { detail }) },
});

describe.each(HARNESS_DATABASES)('image holds on $name', (database) => {
  let vendor: FakeUpstream;
  let h: Harness;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const png = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    SIZES.set(`data:image/png;base64,${png.toString('base64')}`, { width: 512, height: 512 });
    vendor = await startFakeUpstream({ usage: vendorUsage });
    const upstreams = writeUpstreamsFile({
      [TILED]: [
        { provider: 'vendor', url: vendor.baseUrl, model: `vendor/${TILED}`, cost: { input: 0.1, output: 0.5 } },
      ],
      [UNRULED]: [
        { provider: 'vendor', url: vendor.baseUrl, model: `vendor/${UNRULED}`, cost: { input: 0.1, output: 0.5 } },
      ],
    });
    const opened = await database.open();
    drop = opened.drop;
    h = await startHarness({ ...opened.env, UPSTREAMS_FILE: upstreams, MEDIA_FETCH_ALLOW: '127.0.0.1' });
  });

  afterAll(async () => {
    await h?.close();
    await drop?.();
    await vendor?.close();
    removeUpstreamsFiles();
  });

  /** Sends one chat, waits for its charge, and answers the vendor's bill next to what was held and charged. */
  async function chat(model: string, messages: unknown) {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const opening = (await h.deps.ledger.getBalance(accountId)).availableMicros;
    const response = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { model, messages, max_tokens: 1 },
    });
    expect(response.status, response.text).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const hold = await eventually(
      async () => {
        const found = await h.deps.ledger.getHold(`hold:${requestId}`);
        return found?.status === 'posted' ? found : undefined;
      },
      5_000,
      `hold of ${requestId} posted`,
    );
    const upstreamBody = vendor.requests.at(-1)!.body as Record<string, unknown>;
    const principal = await h.deps.authenticator.authenticate(apiKey);
    const bill = textCost(
      h.deps.catalog.find(model)!,
      { ...vendorUsage(upstreamBody), cachedTokens: 0 },
      principal.account,
      { cachedDiscountApplies: false },
    );
    const spent = opening - (await h.deps.ledger.getBalance(accountId)).availableMicros;
    const loss = await h.deps.ledger.getTransfer(`loss:hold:${requestId}`);
    return {
      requestId,
      bill,
      held: hold.amountMicros,
      charged: hold.postedMicros!,
      spent,
      loss: loss?.amountMicros ?? 0n,
      reported: response.body.usage.prompt_tokens as number,
    };
  }

  it('gpt-4o-mini: URL images at any detail and a data-URI image are charged exactly the vendor bill, never a loss', async () => {
    const cases = [
      ask(image(link('square-1024.png'), 'high')), // 25,501 image tokens: the example
      ask(image(link('wide-2048x768.png'))), // the worst case a URL is held at: 8 tiles
      ask(image(link('poster-4096x8192.png'), 'low'), image([...SIZES.keys()].at(-1)!, 'auto')),
    ];
    for (const messages of cases) {
      const { bill, held, charged, spent, loss, reported } = await chat(TILED, messages);
      expect(reported).toBeGreaterThan(2833);
      expect(charged).toBe(bill);
      expect(spent).toBe(bill);
      expect(held).toBeGreaterThanOrEqual(bill);
      expect(loss).toBe(0n);
    }
  });

  it('a model billed above its hold: charged the hold, loss posted and alerted; the next request of that shape is charged the whole bill', async () => {
    const messages = ask(image(link('square-1024.png')), image(link('wide-2048x768.png')));
    const first = await chat(UNRULED, messages);
    expect(first.bill).toBeGreaterThan(first.held);
    expect(first.charged).toBe(first.held);
    expect(first.loss).toBe(first.bill - first.held);
    expect(h.logs.some((l) => l.event === 'platform_loss' && l.requestId === first.requestId)).toBe(true);

    const next = await chat(UNRULED, messages);
    expect(next.held).toBeGreaterThanOrEqual(next.bill);
    expect(next.charged).toBe(next.bill);
    expect(next.loss).toBe(0n);
  });
});
