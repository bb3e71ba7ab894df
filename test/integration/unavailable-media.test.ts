/**
 * SPEC 2.5: a model the catalog marks `available: false` is refused on every surface and kind, as text models are:
 * 400 `no_provider_available` with its reason, before anything is held, fetched or rendered, although a route (the
 * sandbox's default route) would render it. Estimates refuse it too. On SQLite and PostgreSQL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../src/domain/catalog/catalog-file.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, type JsonResponse, startHarness } from '../setup/harness.js';

/** The shipped catalog, with one speech and one music row retired as well (the shipped file retires none). */
const RETIRED: Record<string, string> = {
  'kokoro-82m': 'Retired upstream; use orpheus-3b.',
  'stable-audio-2-5': 'Upstream capacity paused.',
};
const dir = mkdtempSync(join(tmpdir(), 'cgw-catalog-'));
const catalogFile = join(dir, 'catalog.json');
const shipped = JSON.parse(readFileSync('config/catalog.json', 'utf8')) as CatalogFile;
writeFileSync(
  catalogFile,
  JSON.stringify({
    ...shipped,
    models: shipped.models.map((m) =>
      m.slug in RETIRED ? { ...m, available: false, unavailable_reason: RETIRED[m.slug] } : m,
    ),
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(HARNESS_DATABASES)('unavailable media models on $name', (database) => {
  let h: Harness;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const opened = await database.open();
    drop = opened.drop;
    h = await startHarness({ ...opened.env, CATALOG_FILE: catalogFile, MEDIA_POLL_MS: '50' });
  });
  afterAll(async () => {
    await h?.close();
    await drop?.();
  });

  /** Each request is refused with the model's reason, and the account neither paid nor holds anything. */
  async function expectRefused(
    requests: [surface: 'compat' | 'native', path: string, body: Record<string, unknown>][],
    reason: string,
  ): Promise<void> {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 20 });
    for (const [surface, path, body] of requests) {
      const response: JsonResponse = await call(h.baseUrl, 'POST', path, { key: apiKey, body });
      if (surface === 'compat') expectCompatError(response, 400, 'no_provider_available');
      else expectNativeError(response, 400, 'no_provider_available');
      expect(response.text, path).toContain(reason);
    }
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 20_000_000n });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  }

  it('images: compat and native, synchronous, jobs and their estimate (recraft-v2, retired upstream)', async () => {
    const body = { model: 'recraft-v2', prompt: 'A lighthouse' };
    await expectRefused(
      [
        ['compat', '/v1/compat/images/generations', body],
        ['native', '/v1/llm/images/generations', body],
        ['native', '/v1/llm/images/jobs', body],
        ['native', '/v1/llm/images/jobs/estimate', body],
      ],
      'Retired upstream',
    );
  });

  it('an image message in a chat (recraft-v2): refused, and nothing joins the chat', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const chatId = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: apiKey }), 201)
      .chat_id as string;
    const response = await call(h.baseUrl, 'POST', `/v1/llm/chats/${chatId}/messages`, {
      key: apiKey,
      body: { model: 'recraft-v2', content: 'A lighthouse' },
    });
    expectNativeError(response, 400, 'no_provider_available');
    expect(expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey })).dialogues).toEqual(
      [],
    );
  });

  it('video and its estimate (vidV-2, no route in the catalog)', async () => {
    const body = { model: 'vidV-2', prompt: 'Waves', duration: 5 };
    await expectRefused(
      [
        ['native', '/v1/llm/videos/jobs', body],
        ['native', '/v1/llm/videos/jobs/estimate', body],
      ],
      'No route currently serves this model',
    );
  });

  it('video restoration (topaz-video-starlight, capacity paused): refused before the source is fetched', async () => {
    await expectRefused(
      [
        [
          'native',
          '/v1/llm/topaz/video/jobs',
          { model: 'topaz-video-starlight', video_url: 'https://example.com/a.mp4' },
        ],
      ],
      'Upstream capacity paused',
    );
  });

  it('speech and music, with their estimates', async () => {
    const speech = { model: 'kokoro-82m', input: 'Hello there.' };
    const music = { model: 'stable-audio-2-5', prompt: 'Calm piano', duration: 3 };
    await expectRefused(
      [
        ['native', '/v1/llm/audio/jobs', speech],
        ['native', '/v1/llm/audio/jobs/estimate', speech],
      ],
      RETIRED['kokoro-82m']!,
    );
    await expectRefused(
      [
        ['native', '/v1/llm/music/jobs', music],
        ['native', '/v1/llm/music/jobs/estimate', music],
      ],
      RETIRED['stable-audio-2-5']!,
    );
  });

  it('an available model of the same kinds is still served (orpheus-3b speech is accepted)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/audio/jobs', {
        key: apiKey,
        body: { model: 'orpheus-3b', input: 'Hello there.' },
      }),
      202,
    );
  });
});
