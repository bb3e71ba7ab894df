/**
 * SPEC 8's numbers live in src/domain/limits.ts; those that are data rather than code (the contract's request
 * bounds, the catalog's per-model limits) and the adapters' own copies (adapters never import the domain) are
 * held equal to it here, so a limit changes in one place or this test says where else.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/adapters/rate-limiter/index.js';
import { loadContract } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config.js';
import * as limits from '../../src/domain/limits.js';
import { CONNECT_TIMEOUT_MS, DEFAULT_BUDGET_MS } from '../../src/lib/outbound-http.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

type Schema = Record<string, unknown>;
const schemas = loadContract().components?.schemas as Record<string, Schema>;
const field = (schema: string, name: string): Schema => {
  const properties = schemas[schema]?.properties as Record<string, Schema> | undefined;
  return properties?.[name] ?? {};
};

describe('SPEC 8 limits', () => {
  it('the adapters keep the same upstream budget, connect timeout and rate window', () => {
    expect(DEFAULT_BUDGET_MS).toBe(limits.UPSTREAM_BUDGET_MS);
    expect(CONNECT_TIMEOUT_MS).toBe(limits.UPSTREAM_CONNECT_TIMEOUT_MS);
    expect(WINDOW_MS).toBe(limits.RATE_WINDOW_MS);
  });

  it('the configuration defaults are the spec numbers', () => {
    const config = loadConfig({});
    expect(config.RATE_LIMIT_PER_KEY_PER_MINUTE).toBe(limits.RATE_PER_KEY_PER_MINUTE);
    expect(config.RATE_LIMIT_PER_ACCOUNT_PER_MINUTE).toBe(limits.RATE_PER_ACCOUNT_PER_MINUTE);
    expect(config.REQUEST_DEADLINE_MS).toBe(limits.UPSTREAM_BUDGET_MS);
    expect(config.CHAT_JOB_BUDGET_MS).toBe(limits.UPSTREAM_WORST_CASE_MS);
    expect(config.IMAGE_RENDER_BUDGET_MS).toBe(limits.IMAGE_RENDER_BUDGET_MS);
    expect(config.MEDIA_STALL_MS).toBe(limits.VIDEO_STALL_MS);
  });

  it('the contract bounds requests by them', () => {
    for (const schema of ['ChatRequest', 'ResponsesRequest']) {
      expect(field(schema, 'temperature')).toMatchObject({ minimum: 0, maximum: limits.TEMPERATURE_MAX });
      expect(field(schema, 'top_p')).toMatchObject({ minimum: 0, maximum: limits.TOP_P_MAX });
    }
    const arrays = (field('EmbeddingRequest', 'input').oneOf as Schema[]).filter((s) => s.maxItems !== undefined);
    expect(arrays.map((s) => s.maxItems)).toEqual([limits.EMBEDDING_MAX_INPUTS, limits.EMBEDDING_MAX_INPUTS]);
    for (const schema of ['InstanceRequest', 'BurstOrderRequest', 'BurstEstimateRequest']) {
      expect(field(schema, 'gpu_count')).toMatchObject({
        minimum: limits.BURST_MIN_GPUS,
        maximum: limits.BURST_MAX_GPUS,
      });
      expect(field(schema, 'disk_gb')).toMatchObject({
        minimum: limits.BURST_MIN_DISK_GB,
        maximum: limits.BURST_MAX_DISK_GB,
      });
    }
    expect(field('InstanceRequest', 'disk_gb').default).toBe(limits.DEFAULT_DISK_GB);
    expect(field('VideoRequest', 'output_quality')).toMatchObject({
      minimum: limits.VIDEO_MIN_OUTPUT_QUALITY,
      maximum: limits.VIDEO_MAX_OUTPUT_QUALITY,
    });
  });

  it('the catalog gives the text-embedding-3 models 2048 inputs of 8192 tokens', () => {
    const catalog = JSON.parse(readFileSync(`${PROJECT_ROOT}config/catalog.json`, 'utf8')) as {
      models: { slug: string; capabilities: { max_input_items?: number; max_input_tokens?: number } }[];
    };
    const rows = catalog.models.filter((m) => m.slug.startsWith('text-embedding-3'));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(row.capabilities).toMatchObject({
        max_input_items: limits.EMBEDDING_MAX_INPUTS,
        max_input_tokens: limits.EMBEDDING_MAX_INPUT_TOKENS,
      });
  });
});
