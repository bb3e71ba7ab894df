import { describe, expect, it } from 'vitest';
import type {
  ChatResult,
  ChatStream,
  EmbeddingResult,
  RerankResult,
  UpstreamProvider,
} from '../../src/adapters/upstream/index.js';
import { ModelCatalog } from '../../src/domain/catalog/model-catalog.js';
import { type Need, type ProviderSlot, RouteTable } from '../../src/domain/routing/route-table.js';
import { parseUpstreamsFile } from '../../src/domain/routing/upstreams-file.js';
import { ApiError } from '../../src/errors/api-error.js';
import { catalogRow } from '../setup/catalog-rows.js';

type Capability = 'chat' | 'stream' | 'embed' | 'rerank';

/** A provider that can do exactly `can`; its methods are never called here. */
function fake(name: string, can: Capability[]): UpstreamProvider {
  const never = (): Promise<never> => Promise.reject(new Error('not called in these tests'));
  return {
    name,
    streams: can.includes('stream'),
    ...(can.includes('chat') ? { chat: (): Promise<ChatResult> => never() } : {}),
    ...(can.includes('stream') ? { chatStream: (): Promise<ChatStream> => never() } : {}),
    ...(can.includes('embed') ? { embed: (): Promise<EmbeddingResult> => never() } : {}),
    ...(can.includes('rerank') ? { rerank: (): Promise<RerankResult> => never() } : {}),
  };
}

const catalog = new ModelCatalog({
  default_model: 'chat-a',
  external_models: [],
  models: [
    catalogRow({ slug: 'chat-a', media_kind: 'text', aliases: ['chat-a-latest'] }),
    catalogRow({ slug: 'chat-b', media_kind: 'text' }),
    catalogRow({ slug: 'emb-a', media_kind: 'embedding' }),
    catalogRow({ slug: 'rr-a', media_kind: 'rerank' }),
    catalogRow({ slug: 'vid-a', media_kind: 'video' }),
  ],
});

const YAML = `
providers:
  sandbox: { type: sandbox }
  pricey: { type: openai, base_url: "https://pricey.example/v1", api_key_env: PRICEY_KEY }
  cheap: { type: openai, base_url: "https://cheap.example/v1" }
  cheap-too: { type: openai, base_url: "https://cheap2.example/v1" }
  batch-only: { type: openai, base_url: "https://batch.example/v1", streams: false }
  keyless: { type: openai, base_url: "https://keyless.example/v1", api_key_env: KEYLESS_KEY }
  tei: { type: tei-rerank, base_url: "http://tei:8080" }
default_route: { provider: sandbox }
routes:
  chat-a:
    - { provider: pricey, model: vendor/chat-a, cost: { input_usd_per_mtok: 5, output_usd_per_mtok: 15 }, cached_input_discount: true }
    - { provider: cheap, model: chat-a-1, cost: { input_usd_per_mtok: 1, output_usd_per_mtok: 2 } }
    - { provider: cheap-too, model: chat-a-2, cost: { input_usd_per_mtok: 2, output_usd_per_mtok: 1 } }
    - { provider: batch-only, model: chat-a-3 }
  rr-a:
    - { provider: tei, model: BAAI/rr-a }
`;

function slots(overrides: Record<string, ProviderSlot> = {}): Map<string, ProviderSlot> {
  const built = new Map<string, ProviderSlot>([
    ['sandbox', { provider: fake('sandbox', ['chat', 'stream', 'embed', 'rerank']) }],
    ['pricey', { provider: fake('pricey', ['chat', 'stream', 'embed']) }],
    ['cheap', { provider: fake('cheap', ['chat', 'stream', 'embed']) }],
    ['cheap-too', { provider: fake('cheap-too', ['chat', 'stream', 'embed']) }],
    ['batch-only', { provider: fake('batch-only', ['chat']) }],
    ['keyless', { missingCredential: 'KEYLESS_KEY' }],
    ['tei', { provider: fake('tei', ['rerank']) }],
  ]);
  for (const [name, slot] of Object.entries(overrides)) built.set(name, slot);
  return built;
}

function table(yaml = YAML, providers = slots()): RouteTable {
  return new RouteTable(parseUpstreamsFile(yaml, 'test.yaml'), providers, catalog);
}

function verdict(t: RouteTable, slug: string, need: Need): unknown {
  try {
    t.chain(slug, need);
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, status: err.status, slug: err.meta?.slug };
    throw err;
  }
  return 'served';
}

describe('RouteTable.chain: order (SPEC 4.2 cost-sorted)', () => {
  it('sorts by input + output per Mtok, ties in declaration order, unpriced first', () => {
    const chain = table().chain('chat-a', 'chat');
    // batch-only: 0; cheap: 3; cheap-too: 3 (declared after cheap); pricey: 20.
    expect(chain.map((r) => r.providerName)).toEqual(['batch-only', 'cheap', 'cheap-too', 'pricey']);
    expect(chain[3]).toMatchObject({
      upstreamModel: 'vendor/chat-a',
      wholesale: { inputUsdPerMtok: 5, outputUsdPerMtok: 15 },
      cachedInputDiscount: true,
    });
  });

  it('breaks per-token ties by usd_per_request (rerankers that bill per search)', () => {
    const yaml = `
providers:
  per-search: { type: cohere-rerank, base_url: "https://a.example" }
  flat: { type: tei-rerank, base_url: "http://b:80" }
routes:
  rr-a:
    - { provider: per-search, model: x, cost: { usd_per_request: 0.002 } }
    - { provider: flat, model: y }
`;
    const providers = new Map<string, ProviderSlot>([
      ['per-search', { provider: fake('per-search', ['rerank']) }],
      ['flat', { provider: fake('flat', ['rerank']) }],
    ]);
    expect(
      table(yaml, providers)
        .chain('rr-a', 'rerank')
        .map((r) => r.providerName),
    ).toEqual(['flat', 'per-search']);
  });

  it('keeps only the routes able to serve the need', () => {
    expect(
      table()
        .chain('chat-a', 'stream')
        .map((r) => r.providerName),
    ).toEqual(['cheap', 'cheap-too', 'pricey']);
  });

  it('resolves aliases to the slug', () => {
    expect(table().chain('chat-a-latest', 'chat')).toHaveLength(4);
  });

  it('serves unrouted text, embedding and rerank models through default_route under their own slug', () => {
    const t = table();
    expect(t.chain('chat-b', 'stream')).toMatchObject([
      { providerName: 'sandbox', upstreamModel: 'chat-b', wholesale: { inputUsdPerMtok: 0, outputUsdPerMtok: 0 } },
    ]);
    expect(t.chain('emb-a', 'embed')).toMatchObject([{ providerName: 'sandbox', upstreamModel: 'emb-a' }]);
    // An explicit route replaces the default entirely.
    expect(t.chain('rr-a', 'rerank').map((r) => r.providerName)).toEqual(['tei']);
  });
});

describe('RouteTable.chain: verdicts (SPEC 7.2)', () => {
  it('model_disabled for a disabled slug, whatever its routes', () => {
    const t = table(`${YAML}\ndisabled_models: [chat-a]\n`);
    expect(verdict(t, 'chat-a', 'chat')).toEqual({ code: 'model_disabled', status: 503, slug: 'chat-a' });
    expect(t.unavailableReason('chat-a')).toMatch(/disabled/);
  });

  it('no_provider_available for an explicit empty list, even with a default_route', () => {
    const t = table(`${YAML}  chat-b: []\n`);
    expect(verdict(t, 'chat-b', 'chat')).toEqual({ code: 'no_provider_available', status: 400, slug: 'chat-b' });
  });

  it('no_provider_available for a need no route of the model serves, or with no default at all', () => {
    expect(verdict(table(), 'vid-a', 'video')).toMatchObject({ code: 'no_provider_available' });
    const noDefault = YAML.replace('default_route: { provider: sandbox }\n', '');
    expect(verdict(table(noDefault), 'chat-b', 'chat')).toMatchObject({
      code: 'no_provider_available',
      slug: 'chat-b',
    });
  });

  it('gateway_misconfigured when every route lacks its credential', () => {
    const t = table(`${YAML}  chat-b:\n    - { provider: keyless, model: b }\n`);
    expect(verdict(t, 'chat-b', 'chat')).toEqual({ code: 'gateway_misconfigured', status: 503, slug: 'chat-b' });
    expect(t.unavailableReason('chat-b')).toMatch(/credentials/);
  });

  it('skips a route without its credential when another one serves', () => {
    const t = table(YAML, slots({ pricey: { missingCredential: 'PRICEY_KEY' } }));
    expect(t.chain('chat-a', 'chat').map((r) => r.providerName)).toEqual(['batch-only', 'cheap', 'cheap-too']);
  });

  it('gateway_misconfigured when the only route that could stream lacks its credential', () => {
    const yaml = `${YAML}  chat-b:\n    - { provider: batch-only, model: b }\n    - { provider: keyless, model: b }\n`;
    expect(verdict(table(yaml), 'chat-b', 'stream')).toMatchObject({ code: 'gateway_misconfigured' });
  });

  it('no_streaming_upstream when only non-stream upstreams serve and stream was asked', () => {
    const t = table(`${YAML}  chat-b:\n    - { provider: batch-only, model: b }\n`);
    expect(verdict(t, 'chat-b', 'stream')).toEqual({ code: 'no_streaming_upstream', status: 503, slug: 'chat-b' });
    expect(t.chain('chat-b', 'chat')).toHaveLength(1);
  });

  it('a stream-flagged provider without chatStream does not count as streaming', () => {
    const half: UpstreamProvider = { ...fake('cheap', ['chat']), streams: true };
    const t = table(`${YAML}  chat-b:\n    - { provider: cheap, model: b }\n`, slots({ cheap: { provider: half } }));
    expect(verdict(t, 'chat-b', 'stream')).toMatchObject({ code: 'no_streaming_upstream' });
  });

  it('no_provider_available when the routes cannot serve the need at all', () => {
    expect(verdict(table(), 'rr-a', 'embed')).toMatchObject({ code: 'no_provider_available', slug: 'rr-a' });
    expect(verdict(table(), 'rr-a', 'stream')).toMatchObject({ code: 'no_provider_available' });
  });

  it('model_not_found for a name outside the catalog', () => {
    expect(verdict(table(), 'nope', 'chat')).toMatchObject({ code: 'model_not_found' });
  });
});

describe('RouteTable: caching and unavailableReason', () => {
  it('computes each (slug, need) chain once; callers get copies they cannot corrupt', () => {
    const t = table();
    const first = t.chain('chat-a', 'chat');
    first.reverse();
    first.pop();
    const second = t.chain('chat-a', 'chat');
    expect(second.map((r) => r.providerName)).toEqual(['batch-only', 'cheap', 'cheap-too', 'pricey']);
    expect(second[0]).toBe(t.chain('chat-a', 'chat')[0]);
    expect(Object.isFrozen(second[0])).toBe(true);
  });

  it('throws the same verdict every time, each a fresh ApiError', () => {
    const t = table();
    const errors = [0, 1].map(() => {
      try {
        t.chain('vid-a', 'video');
      } catch (err) {
        return err;
      }
      return undefined;
    });
    expect(errors[0]).toBeInstanceOf(ApiError);
    expect(errors[0]).not.toBe(errors[1]);
    expect(errors[1]).toMatchObject({ code: 'no_provider_available' });
  });

  it('unavailableReason: null when callable for its kind with a configured provider, why not otherwise; unknown slugs are not judged', () => {
    const t = table();
    expect(['chat-a', 'chat-a-latest', 'chat-b', 'emb-a', 'rr-a'].map((s) => t.unavailableReason(s))).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(t.unavailableReason('vid-a')).toMatch(/No route serves model "vid-a" for video/);
    expect(t.unavailableReason('nope')).toBeNull();
    expect(table(`${YAML}  chat-b: []\n`).unavailableReason('chat-b')).toMatch(/No route serves/);
  });
});

describe('RouteTable: checked at start', () => {
  it('rejects a route or a disabled entry that is not a catalog slug', () => {
    expect(() => table(`${YAML}  chat-z: []\n`)).toThrow(/routes\.chat-z: not a catalog slug/);
    expect(() => table(`${YAML}  chat-a-latest: []\n`)).toThrow(/an alias; write the slug "chat-a"/);
    expect(() => table(`${YAML}\ndisabled_models: [ghost]\n`)).toThrow(/disabled_models: "ghost": not a catalog slug/);
  });

  it('rejects a provider map that lacks a declared provider', () => {
    const partial = slots();
    partial.delete('tei');
    expect(() => table(YAML, partial)).toThrow(/providers\.tei: not built/);
  });
});
