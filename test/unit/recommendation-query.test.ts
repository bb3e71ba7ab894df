/** SPEC 2.13: a recommendation query read into constraints, deterministically, GPU models against the live names. */
import { describe, expect, it } from 'vitest';
import { memoryNeededGb, parseRecommendationQuery } from '../../src/domain/market/recommendation-query.js';

const LIVE = ['RTX_4090', 'A100_80GB', 'A100_40GB', 'L4', 'RTX_3090', 'H100_SXM'];
const parse = (query: string, live: readonly string[] = LIVE) => parseRecommendationQuery(query, live);
const codes = (query: string) => [...new Set(parse(query).places.flatMap((p) => p.codes))].sort();
const usdPerHour = (query: string) => {
  const micros = parse(query).maxPricePerHourMicros;
  return micros === null ? null : Number(micros) / 1e6;
};

describe('model size → GPU memory needed', () => {
  it.each([
    ['serve a 70B model', 70, 168],
    ['run llama 3 70b', 70, 168],
    ['a 7b chat bot', 7, 17],
    ['13 billion parameters', 13, 32],
    ['qwen2.5-1.5B', 1.5, 4],
    ['gpt-oss-120b', 120, 288],
  ])('%s: %dB at 16-bit (2 GB per billion + 20 %%) needs %d GB', (query, billions, gb) => {
    expect(parse(query)).toMatchObject({ modelBillions: billions, precision: '16-bit', vramNeededGb: gb });
  });

  it.each([
    ['70B in 4-bit', '4-bit', 42],
    ['70b int4', '4-bit', 42],
    ['llama 70b q4_k_m', '4-bit', 42],
    ['70B AWQ', '4-bit', 42],
    ['70B 8-bit', '8-bit', 84],
    ['70b int8', '8-bit', 84],
    ['70b fp16', '16-bit', 168],
    ['70b in 8-bit or 4-bit', '8-bit', 84],
  ])('%s: %s, %d GB (two precisions: the larger, which covers both)', (query, precision, gb) => {
    expect(parse(query)).toMatchObject({ modelBillions: 70, precision, vramNeededGb: gb });
  });

  it('a mixture of experts counts all its experts ("8x7b" is 56B, not 8 GPUs)', () => {
    expect(parse('mixtral 8x7b')).toMatchObject({ modelBillions: 56, gpuCount: null, vramNeededGb: 135 });
  });

  it('rounds the estimate up to whole GB without float noise', () => {
    expect(memoryNeededGb(70, '16-bit')).toBe(168);
    expect(memoryNeededGb(7, '4-bit')).toBe(5);
  });
});

describe('explicit memory', () => {
  it('"at least 48GB" is per GPU; "160GB in total" is the whole need; system RAM, disk and dollars are not GPU memory', () => {
    expect(parse('at least 48GB')).toMatchObject({ minVramPerGpuGb: 48, vramNeededGb: null });
    expect(parse('a card with 24 GB of VRAM')).toMatchObject({ minVramPerGpuGb: 24 });
    expect(parse('160GB of VRAM in total')).toMatchObject({ vramNeededGb: 160, minVramPerGpuGb: null });
    expect(parse('128GB RAM and 2000GB disk, under $48')).toMatchObject({ minVramPerGpuGb: null, vramNeededGb: null });
    expect(parse('İstanbul team needs at least 48GB in Germany')).toMatchObject({
      minVramPerGpuGb: 48,
      places: [{ label: 'Germany', codes: ['DE'] }],
    });
  });

  it('the larger of a stated total and the model estimate is needed', () => {
    expect(parse('7b model, 40GB total').vramNeededGb).toBe(40);
    expect(parse('70b model, 40GB total').vramNeededGb).toBe(168);
  });
});

describe('budget', () => {
  it.each([
    ['under $1/hour', 1],
    ['budget $2 per hour', 2],
    ['less than 3 dollars an hour', 3],
    ['max $1.5/hr', 1.5],
    ['$720 a month', 1],
    ['$48 per day', 2],
    ['$1,440 monthly', 2],
    ['between $1 and $2 an hour', 2],
    ['no money named', null],
  ])('%s → %s USD per hour', (query, usd) => {
    expect(usdPerHour(query)).toBe(usd);
  });

  it('is for the whole rental unless the query says per GPU', () => {
    expect(parse('under $2/hour').budgetPer).toBe('rental');
    expect(parse('$0.50 per GPU per hour').budgetPer).toBe('gpu');
    expect(parse('$0.50/gpu/h').budgetPer).toBe('gpu');
    expect(parse('$0.50 per gpu-hour')).toMatchObject({ budgetPer: 'gpu', maxPricePerHourMicros: 500_000n });
    expect(parse('70b').budgetPer).toBeNull();
  });
});

describe('GPU count', () => {
  it.each([
    ['4 GPUs', 4],
    ['two GPUs', 2],
    ['8x A100', 8],
    ['8x', 8],
    ['4 x 4090', 4],
    ['on 2 a100s', 2],
    ['4 A100 GPUs', 4],
    ['a 4-bit model', null],
    ['200 GPUs', null],
  ])('%s → %s', (query, count) => {
    expect(parse(query).gpuCount).toBe(count);
  });
});

describe('location', () => {
  it('reads country names, codes after "in"/"from", US/UK/EU anywhere, and regions as sets', () => {
    expect(codes('in Germany')).toEqual(['DE']);
    expect(codes('US only')).toEqual(['US']);
    expect(codes('servers in the USA or the UK')).toEqual(['GB', 'US']);
    expect(codes('hosted in DE, FR or NL')).toEqual(['DE', 'FR', 'NL']);
    expect(codes('South Korea')).toEqual(['KR']);
    const eu = codes('somewhere in the EU');
    expect(eu).toHaveLength(27);
    expect(eu).toContain('DE');
    expect(eu).not.toContain('GB');
    expect(codes('in Europe')).toEqual(expect.arrayContaining(['DE', 'GB', 'CH', 'NO']));
  });

  it('does not take words for countries ("in AI", "in IT", lower-case "us")', () => {
    expect(codes('I work in AI and in IT, help us')).toEqual([]);
  });
});

describe('GPU models, matched against what is on offer now', () => {
  it('by a distinctive part or the whole name, case-insensitively', () => {
    expect(parse('a 4090 please').gpuModels).toEqual(['RTX_4090']);
    expect(parse('rtx4090').gpuModels).toEqual(['RTX_4090']);
    expect(parse('RTX 4090 or an h100').gpuModels).toEqual(['RTX_4090', 'H100_SXM']);
    expect(parse('an A100').gpuModels).toEqual(['A100_40GB', 'A100_80GB']);
    expect(parse('an H100, else a 4090').gpuModels).toEqual(['H100_SXM', 'RTX_4090']); // in the order named
    expect(parse('L4 for whisper').gpuModels).toEqual(['L4']);
  });

  it('a GPU model nobody offers now is named as such, never matched to another', () => {
    expect(parse('H200 or RTX 5090 or a b200', ['RTX_4090'])).toMatchObject({
      gpuModels: [],
      gpusNotOffered: ['H200', 'RTX 5090', 'B200'],
    });
    expect(parse('an H100', ['RTX_4090'])).toMatchObject({ gpuModels: [], gpusNotOffered: ['H100'] });
  });

  it('quantization and model names are not GPU models', () => {
    expect(parse('llama2 q4 fp16 gpt-4o int8 70b')).toMatchObject({ gpuModels: [], gpusNotOffered: [] });
  });
});

it('reads a whole request, the same way every time', () => {
  const query = 'Serve llama 3 70B in 4-bit on 2 GPUs under $3 per hour in Germany, RTX 4090 or A100';
  const first = parse(query);
  expect(first).toEqual({
    modelBillions: 70,
    precision: '4-bit',
    vramNeededGb: 42,
    minVramPerGpuGb: null,
    maxPricePerHourMicros: 3_000_000n,
    budgetPer: 'rental',
    gpuCount: 2,
    places: [{ label: 'Germany', codes: ['DE'] }],
    gpuModels: ['RTX_4090', 'A100_40GB', 'A100_80GB'],
    gpusNotOffered: [],
  });
  expect(parse(query)).toEqual(first);
  expect(parse('something fast, please')).toMatchObject({
    modelBillions: null,
    vramNeededGb: null,
    gpuCount: null,
    places: [],
    gpuModels: [],
    maxPricePerHourMicros: null,
  });
});
