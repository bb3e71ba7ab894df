import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InProcessTokenWork } from '../../src/adapters/tokenizer/in-process.js';
import type { UpstreamProvider } from '../../src/adapters/upstream/index.js';
import { loadUpstreamsFile } from '../../src/composition/config-files.js';
import { buildProviders } from '../../src/composition/providers.js';
import type { CatalogFile } from '../../src/domain/catalog/catalog-file.js';
import { ModelCatalog } from '../../src/domain/catalog/model-catalog.js';
import { type ProviderSlot, RouteTable } from '../../src/domain/routing/route-table.js';
import { parseUpstreamsFile, type UpstreamsFile, UpstreamsFileError } from '../../src/domain/routing/upstreams-file.js';
import { TokenCounter } from '../../src/domain/text/token-counter.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const tokens = new TokenCounter(new InProcessTokenWork());

const SHIPPED = `${PROJECT_ROOT}config/upstreams.yaml`;
const catalog = new ModelCatalog(JSON.parse(readFileSync(`${PROJECT_ROOT}config/catalog.json`, 'utf8')) as CatalogFile);

/** Stands in for every provider of the file, able to do everything (the real classes are tested on their own). */
function everyProvider(file: UpstreamsFile): Map<string, ProviderSlot> {
  const reject = (): Promise<never> => Promise.reject(new Error('not called'));
  const provider = (name: string): UpstreamProvider => ({
    name,
    streams: true,
    chat: reject,
    chatStream: reject,
    embed: reject,
    rerank: reject,
  });
  return new Map(Object.keys(file.providers).map((name) => [name, { provider: provider(name) }]));
}

/** The problems of a file that must not parse. */
function problems(yaml: string): string[] {
  try {
    parseUpstreamsFile(yaml, 'bad.yaml');
  } catch (err) {
    if (err instanceof UpstreamsFileError) return err.problems;
    throw err;
  }
  throw new Error('expected the file to be rejected');
}

describe('the shipped config/upstreams.yaml', () => {
  const file = loadUpstreamsFile(SHIPPED);

  it('is the embedded default: the sandbox serves every text, embedding and rerank model under its slug', () => {
    expect(file.providers).toEqual({ sandbox: { type: 'sandbox' } });
    expect(file.default_route).toEqual({ provider: 'sandbox' });
    expect(file.routes).toEqual({});
    expect(file.disabled_models).toEqual([]);
    const table = new RouteTable(file, everyProvider(file), catalog);
    const need = { text: 'stream', embedding: 'embed', rerank: 'rerank' } as const;
    // A row the catalog file retires stays unavailable whatever routes it (README "Availability follows the routes").
    const served = catalog
      .view(null)
      .models.filter((m): m is typeof m & { media_kind: keyof typeof need } => m.media_kind in need && m.available);
    expect(served.length).toBeGreaterThan(200);
    for (const model of served) {
      expect(table.chain(model.slug, need[model.media_kind])).toMatchObject([
        { providerName: 'sandbox', upstreamModel: model.slug },
      ]);
    }
  });

  it('its commented-out examples, uncommented, form a valid file over real catalog slugs', () => {
    const uncommented = readFileSync(SHIPPED, 'utf8').replace(/^(\s*)# /gm, '$1');
    const examples = parseUpstreamsFile(uncommented, 'uncommented');
    expect(
      Object.values(examples.providers)
        .map((p) => p.type)
        .sort(),
    ).toEqual(['cohere-rerank', 'openai', 'openai', 'openai', 'sandbox', 'tei-rerank']);
    expect(examples.routes['bce-reranker-base-v1']).toEqual([]);
    const table = new RouteTable(examples, everyProvider(examples), catalog);
    expect(table.chain('llama-3-1-8b-instruct', 'chat').map((r) => r.providerName)).toEqual([
      'vllm-gpu-pool',
      'openrouter',
    ]);
  });
});

describe('buildProviders', () => {
  const deps = { embeddingDimensions: () => 8, tokens };
  const examples = parseUpstreamsFile(readFileSync(SHIPPED, 'utf8').replace(/^(\s*)# /gm, '$1'), 'uncommented');

  async function closeAll(slots: Map<string, ProviderSlot>): Promise<void> {
    for (const slot of slots.values()) if ('provider' in slot) await slot.provider.close?.();
  }

  it('builds the shipped default: a real sandbox serving the catalog', async () => {
    const file = loadUpstreamsFile(SHIPPED);
    const slots = buildProviders(file, {}, deps);
    const table = new RouteTable(file, slots, catalog);
    expect(table.chain('gpt-5-mini', 'stream')[0]?.provider.name).toBe('sandbox');
    expect(table.chain('bge-reranker-v2-m3', 'rerank')).toHaveLength(1);
    await closeAll(slots);
  });

  it('keeps a provider whose key variable is unset (or empty) as a missing credential', async () => {
    const slots = buildProviders(examples, { OPENAI_API_KEY: 'sk-test', OPENROUTER_API_KEY: '' }, deps);
    expect(slots.get('openrouter')).toEqual({ missingCredential: 'OPENROUTER_API_KEY' });
    expect(slots.get('siliconflow')).toEqual({ missingCredential: 'SILICONFLOW_API_KEY' });
    expect(slots.get('openai')).toMatchObject({ provider: { name: 'openai', streams: true } });
    expect(slots.get('vllm-gpu-pool')).toMatchObject({ provider: { name: 'vllm-gpu-pool' } });
    expect(slots.get('tei-bge-reranker')).toMatchObject({ provider: { name: 'tei-bge-reranker', streams: false } });
    const table = new RouteTable(examples, slots, catalog);
    expect(() => table.chain('qwen3-reranker-0.6b', 'rerank')).toThrow(
      expect.objectContaining({ code: 'gateway_misconfigured' }),
    );
    expect(table.chain('gpt-4o-mini', 'chat').map((r) => r.providerName)).toEqual(['openai']);
    await closeAll(slots);
  });
});

describe('parseUpstreamsFile: bad files name the line and the field', () => {
  const base = 'providers:\n  sandbox:\n    type: sandbox\n';

  it('YAML syntax errors', () => {
    expect(problems('providers:\n  sandbox: { type: sandbox\n')[0]).toMatch(/^bad\.yaml:\d+: /);
    expect(problems(`${base}providers: {}\n`)[0]).toMatch(/^bad\.yaml:4: .*[Uu]nique/);
  });

  it('an unknown top-level key, at its own line', () => {
    expect(problems(`${base}rotues: {}\n`)).toEqual([expect.stringMatching(/^bad\.yaml:4:1: rotues: unknown field/)]);
  });

  it('a field the provider type does not take', () => {
    const yaml = `${base}  tei:\n    type: tei-rerank\n    base_url: http://tei:8080\n    streams: true\n`;
    expect(problems(yaml)).toEqual([expect.stringMatching(/^bad\.yaml:7:5: providers\.tei\.streams: unknown field/)]);
  });

  it('an unknown provider type', () => {
    expect(problems('providers:\n  x:\n    type: anthropic\n')).toEqual([
      expect.stringMatching(
        /^bad\.yaml:3:5: providers\.x\.type: .*'sandbox' \| 'openai' \| 'cohere-rerank' \| 'tei-rerank'/,
      ),
    ]);
  });

  it('base_url missing for an HTTP type, or not http(s)', () => {
    expect(problems('providers:\n  v:\n    type: openai\n')).toEqual([
      'bad.yaml:2:3: providers.v.base_url: is required for an HTTP provider',
    ]);
    expect(problems('providers:\n  v:\n    type: cohere-rerank\n    base_url: ftp://x\n')).toEqual([
      'bad.yaml:4:5: providers.v.base_url: must be an http(s) URL',
    ]);
  });

  it('an api_key_env that is not a variable name (a pasted key, say)', () => {
    const yaml = 'providers:\n  v: { type: openai, base_url: "https://v.example/v1", api_key_env: "sk-live 123" }\n';
    expect(problems(yaml)[0]).toMatch(/providers\.v\.api_key_env: must be the name of an environment variable/);
  });

  it('a route to an undeclared provider, and a default_route to one', () => {
    const yaml = `${base}default_route: { provider: ghost }\nroutes:\n  gpt-4o:\n    - provider: sandbox\n      model: a\n    - provider: opnai\n      model: gpt-4o\n`;
    expect(problems(yaml)).toEqual([
      'bad.yaml:9:7: routes.gpt-4o[1].provider: unknown provider "opnai" (declared: sandbox)',
      'bad.yaml:4:18: default_route.provider: unknown provider "ghost" (declared: sandbox)',
    ]);
  });

  it('route fields: model required, cost non-negative and known, the same route twice', () => {
    const yaml = `${base}routes:\n  a:\n    - { provider: sandbox, cost: { input_usd_per_mtok: -1, per_token: 2 } }\n`;
    expect(problems(yaml)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.yaml:6:7: routes\.a\[0\]\.model: /),
        expect.stringMatching(/routes\.a\[0\]\.cost\.input_usd_per_mtok: .*>=0/),
        expect.stringMatching(/routes\.a\[0\]\.cost\.per_token: unknown field/),
      ]),
    );
    expect(
      problems(`${base}routes:\n  a:\n    - { provider: sandbox, model: m }\n    - { provider: sandbox, model: m }\n`),
    ).toEqual(['bad.yaml:7:7: routes.a[1]: duplicates an earlier route (sandbox, m)']);
  });

  it('a slug with nothing under it is not an empty list', () => {
    expect(problems(`${base}routes:\n  a:\n`)[0]).toMatch(/routes\.a: .*expected array/);
  });

  it('collects every problem in one error', () => {
    const err = (() => {
      try {
        return parseUpstreamsFile('providers:\n  a: { type: openai }\n  b: { type: tei-rerank }\n', 'two.yaml');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UpstreamsFileError);
    expect((err as Error).message).toMatch(
      /two\.yaml:2:3: providers\.a\.base_url[\s\S]*two\.yaml:3:3: providers\.b\.base_url/,
    );
  });

  it('reads sections left with only comments as empty', () => {
    const file = parseUpstreamsFile(`${base}routes:\n  # none yet\ndisabled_models:\n`);
    expect(file).toEqual({ providers: { sandbox: { type: 'sandbox' } }, routes: {}, disabled_models: [] });
  });
});
