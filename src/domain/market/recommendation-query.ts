/**
 * SPEC 2.13: a natural-language GPU request read into constraints, deterministically (no model involved), so the
 * recommendation rests on facts any caller can check. Each rule reads its phrases and blanks them out of the text,
 * so a later rule never reads them again ("8x7b" is a model size, not 8 GPUs; "4-bit" is not 4 GPUs; "$48" is
 * not 48 GB). GPU models are matched against the names on offer now, so only real, live GPUs can be named.
 */

import { onFirstUse } from '../../lib/on-first-use.js';
import { type Micros, usdToMicros } from '../billing/money.js';
import { BURST_MAX_GPUS } from '../limits.js';
import { countryPlace, isCountryCode, namedPlaces, type Place, standalonePlace } from './countries.js';

export type Precision = '16-bit' | '8-bit' | '4-bit';

export interface RecommendationConstraints {
  /** Billions of parameters of the model named ("70B", "13 billion"); null when none is. */
  modelBillions: number | null;
  /** The weights' precision the memory estimate assumes (16-bit unless the query says); null without a model size. */
  precision: Precision | null;
  /** GPU memory the model needs in all, GB, or a total the query states ("160GB in total"). */
  vramNeededGb: number | null;
  /** "at least 48GB": memory of each GPU. */
  minVramPerGpuGb: number | null;
  /** The most the query will pay per hour, for the whole rental or per GPU (`budgetPer`). */
  maxPricePerHourMicros: Micros | null;
  budgetPer: 'rental' | 'gpu' | null;
  gpuCount: number | null;
  /** Places named, each with its ISO 3166-1 alpha-2 codes. */
  places: Place[];
  /** Live GPU names the query names ("4090" → RTX_4090). */
  gpuModels: string[];
  /** GPU models the query names that nobody offers now ("H100"). */
  gpusNotOffered: string[];
}

/** GB of weights per billion parameters at each precision (1 byte per parameter at 8 bits). */
export const GB_PER_BILLION: Record<Precision, number> = { '16-bit': 2, '8-bit': 1, '4-bit': 0.5 };
/** KV cache, activations and the runtime on top of the weights, as a share of them. */
export const MEMORY_OVERHEAD = 0.2;

const B = '(?<![a-z0-9.$])'; // a token starts here
const E = '(?![a-z0-9])'; // and ends here
const re = (source: string) => new RegExp(source, 'g');

const PRECISIONS: [Precision, RegExp][] = [
  ['16-bit', re(`${B}(?:16[\\s-]?bits?|fp16|bf16|half[\\s-]precision)${E}`)],
  ['8-bit', re(`${B}(?:8[\\s-]?bits?|int8|fp8|q8(?:_[a-z0-9]+)*)${E}`)],
  ['4-bit', re(`${B}(?:4[\\s-]?bits?|int4|nf4|awq|gptq|q4(?:_[a-z0-9]+)*)${E}`)],
];
const MIXTURE_SIZE = re(`${B}(\\d{1,3})\\s*x\\s*(\\d{1,4}(?:\\.\\d+)?)\\s*b${E}`);
const MODEL_SIZE = re(`${B}(\\d{1,5}(?:\\.\\d+)?)\\s*(?:b|bn|billion)(?:\\s*param(?:eter)?s?)?${E}`);
const PER_GPU = '(\\s*(?:/|per|an?|each)\\s*(?:gpu|card)s?(?:[\\s-]*(?:hour|hr|h))?(?![a-z0-9]))?';
const AMOUNT = '(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?)'; // "1,000.50"
const MONEY = re(
  `(?:\\$\\s*${AMOUNT}|${B}${AMOUNT}\\s*(?:usd|dollars?|bucks)(?![a-z]))${PER_GPU}` +
    `(?:\\s*(?:/|per|an?|every)\\s*(hours?|hrs?|h|days?|d|weeks?|wk|months?|mo)${E}|\\s*(hourly|daily|weekly|monthly)${E})?${PER_GPU}`,
);
const VRAM = re(
  `${B}(\\d{1,4})\\s*(?:gb|gib|g)${E}(\\s*(?:of\\s+)?(?:vram|gpu\\s+memory|memory|ram|disk|ssd|storage|nvme)${E})?`,
);
const NOT_GPU_MEMORY = /^\s*(?:of\s+)?(?:ram|disk|ssd|storage|nvme)$/;
const TOTAL = /\b(?:total|combined|altogether|in all|aggregate)\b/;
const COUNT_WORDS: Record<string, number> = {
  one: 1,
  single: 1,
  two: 2,
  dual: 2,
  three: 3,
  four: 4,
  quad: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  twelve: 12,
  sixteen: 16,
};
const GPU_COUNT = re(
  `${B}(\\d{1,3}|${Object.keys(COUNT_WORDS).join('|')})\\s*(?:x\\s*)?(?:[a-z0-9_-]+\\s+){0,2}(?:gpus?|cards?)${E}`,
);
const TIMES_COUNT = re(`${B}(\\d{1,3})\\s*[x×](?![0-9])`);
const CODE_AFTER_PREPOSITION =
  /(?:\b[Ii]n|\b[Ff]rom|\b[Ww]ithin|\b[Ii]nside|\b[Nn]ear)\s+(?:the\s+)?([A-Z]{2}(?:\s*(?:,|\/|or|and)\s*[A-Z]{2})*)(?![A-Za-z0-9])/g;
/** Codes that after "in" are more often something else ("in AI", "in IT", "in GB"); those countries are named instead. */
const WORD_CODES = new Set([
  'AI',
  'AM',
  'AS',
  'BE',
  'BS',
  'CI',
  'CV',
  'DO',
  'GB',
  'ID',
  'IO',
  'IS',
  'IT',
  'ME',
  'ML',
  'NO',
  'PM',
  'PR',
  'PS',
  'SO',
  'TO',
  'TV',
]);
const STANDALONE = /(?<![A-Za-z0-9])(USA|US|UK|EU)(?![A-Za-z0-9])/g;
const OTHER_GPU = re(
  `(?<![a-z0-9])(?:(?:rtx|gtx|quadro|tesla|radeon|rx)[\\s-]*)?(?:gb|[abhklptv])\\d{2,4}[a-z]?${E}|(?<![a-z0-9])(?:mi\\d{3}[a-z]?|(?:rtx|gtx|rx)[\\s-]*\\d{3,4}(?:[\\s-]?(?:ti|super|xtx?))?)${E}`,
);
const HOURS_PER: Record<string, number> = { h: 1, d: 24, w: 168, m: 720 }; // a month is the month plan's 30 days

/** The query's text still unread: a rule's matches are blanked (same length, so indexes hold) once it has read them. */
class Unread {
  lower: string;
  constructor(private original: string) {
    // Character by character, keeping lengths: "İ" lower-cases to two code units, which would shift every index.
    this.lower = original.replace(/./gsu, (ch) => (ch.toLowerCase().length === ch.length ? ch.toLowerCase() : ch));
  }

  /** Reads and blanks every match of a global pattern (case-sensitive patterns read the original spelling). */
  take(pattern: RegExp, caseSensitive = false): RegExpExecArray[] {
    const found = this.find(pattern, caseSensitive);
    this.blank(found);
    return found;
  }

  find(pattern: RegExp, caseSensitive = false): RegExpExecArray[] {
    return [...(caseSensitive ? this.original : this.lower).matchAll(pattern)];
  }

  blank(matches: readonly RegExpExecArray[]): void {
    for (const m of matches) {
      const blank = (s: string) => s.slice(0, m.index) + ' '.repeat(m[0].length) + s.slice(m.index + m[0].length);
      this.lower = blank(this.lower);
      this.original = blank(this.original);
    }
  }
}

/** SPEC 2.13: the constraints of `query`, GPU models matched against `liveGpuNames` (the marketplace's gpu_name). */
export function parseRecommendationQuery(query: string, liveGpuNames: readonly string[]): RecommendationConstraints {
  const text = new Unread(query.normalize('NFKC'));
  const stated = PRECISIONS.filter(([, pattern]) => text.take(pattern).length > 0).map(([precision]) => precision);
  const modelBillions = largest(
    [
      ...text.take(MIXTURE_SIZE).map((m) => Number(m[1]) * Number(m[2])),
      ...text.take(MODEL_SIZE).map((m) => Number(m[1])),
    ].filter((b) => b > 0),
  );
  // Two precisions named ("8-bit or 4-bit"): the larger one, so the estimate covers both.
  const precision = modelBillions === null ? null : (stated[0] ?? '16-bit');
  const budget = readBudget(text);
  const memory = readMemory(text);
  const counts = [...text.take(GPU_COUNT), ...text.take(TIMES_COUNT)].map((m) => COUNT_WORDS[m[1]!] ?? Number(m[1]));
  const places = readPlaces(text);
  const gpus = readGpus(text, liveGpuNames);
  const modelNeed = modelBillions === null || precision === null ? null : memoryNeededGb(modelBillions, precision);
  return {
    modelBillions,
    precision,
    vramNeededGb: largest([modelNeed, memory.totalGb].filter((gb): gb is number => gb !== null)),
    minVramPerGpuGb: memory.perGpuGb,
    maxPricePerHourMicros: budget?.micros ?? null,
    budgetPer: budget?.per ?? null,
    gpuCount: largest([...counts, ...gpus.counts].filter((n) => n >= 1 && n <= BURST_MAX_GPUS)),
    places,
    gpuModels: gpus.live,
    gpusNotOffered: gpus.other,
  };
}

/** Weights at `precision` plus MEMORY_OVERHEAD, in whole GB rounded up (70B at 16-bit: 168 GB). */
export function memoryNeededGb(billions: number, precision: Precision): number {
  return Math.ceil(Number((billions * GB_PER_BILLION[precision] * (1 + MEMORY_OVERHEAD)).toFixed(6)));
}

function largest(values: number[]): number | null {
  return values.length === 0 ? null : Math.max(...values);
}

/** "under $1/hour", "budget $2 per hour", "$0.50 per GPU", "$500 a month": the largest, as USD per hour. */
function readBudget(text: Unread): { micros: Micros; per: 'rental' | 'gpu' } | null {
  let best: { micros: Micros; per: 'rental' | 'gpu' } | null = null;
  for (const m of text.take(MONEY)) {
    const unit = (m[4] ?? m[5] ?? 'h')[0]!; // hours, hourly → h; days, daily → d; …
    const micros = usdToMicros(Number((m[1] ?? m[2])!.replaceAll(',', '')) / (HOURS_PER[unit] ?? 1));
    const per = m[3] !== undefined || m[6] !== undefined ? 'gpu' : 'rental';
    if (best === null || micros > best.micros) best = { micros, per };
  }
  return best;
}

/** "at least 48GB" (each GPU), "160GB of VRAM in total" (all GPUs); system RAM and disk sizes are not GPU memory. */
function readMemory(text: Unread): { perGpuGb: number | null; totalGb: number | null } {
  const perGpu: number[] = [];
  const total: number[] = [];
  for (const m of text.take(VRAM)) {
    if (m[2] !== undefined && NOT_GPU_MEMORY.test(m[2])) continue;
    const around = text.lower.slice(Math.max(0, m.index - 16), m.index + m[0].length + 16);
    (TOTAL.test(around) ? total : perGpu).push(Number(m[1]));
  }
  return { perGpuGb: largest(perGpu.filter((gb) => gb > 0)), totalGb: largest(total.filter((gb) => gb > 0)) };
}

/** Country and region names anywhere; bare ISO codes after "in"/"from" ("in DE, FR"), and US, USA, UK, EU anywhere. */
function readPlaces(text: Unread): Place[] {
  const places: Place[] = [];
  for (const [name, place] of placePatterns()) if (text.take(name).length > 0) places.push(place);
  for (const m of text.take(CODE_AFTER_PREPOSITION, true)) {
    for (const code of m[1]!.match(/[A-Z]{2}/g) ?? [])
      if (isCountryCode(code) && !WORD_CODES.has(code)) places.push(countryPlace(code));
  }
  for (const m of text.take(STANDALONE, true)) places.push(standalonePlace(m[1]!));
  return places.filter((place, i) => places.findIndex((p) => p.label === place.label) === i);
}

/** Built with the first query, as the country names are (countries.ts). */
const placePatterns = onFirstUse((): [RegExp, Place][] =>
  namedPlaces().map(([name, place]) => [re(`(?<![a-z])${escapeRegExp(name)}(?![a-z])`), place]),
);

/**
 * GPU models named: each live name by its whole name ("rtx 4090", "RTX_4090") or its distinctive part ("4090",
 * "a100" for A100_80GB: a part with a digit that is not a memory size or a form factor). A number right before it is
 * a GPU count ("2 A100s"). Whatever else looks like a GPU model ("H100", "RTX 5090") is named but not offered.
 */
function readGpus(
  text: Unread,
  liveGpuNames: readonly string[],
): { live: string[]; counts: number[]; other: string[] } {
  const live: { name: string; at: number }[] = [];
  const counts: number[] = [];
  const read: RegExpExecArray[] = [];
  // Every name is looked for in the same text, so "3090" names both RTX_3090 and RTX_3090_TI.
  for (const name of liveGpuNames) {
    const aliases = [name.toLowerCase().split('_').map(escape).join('[\\s_-]*'), ...distinctiveParts(name).map(escape)];
    const found = text.find(re(`(?:${B}(\\d{1,3})\\s*(?:x\\s*)?)?(?<![a-z0-9])(?:${aliases.join('|')})s?${E}`));
    if (found[0] !== undefined) live.push({ name, at: found[0].index });
    for (const m of found) if (m[1] !== undefined) counts.push(Number(m[1]));
    read.push(...found);
  }
  text.blank(read);
  const other = text.take(OTHER_GPU).map((m) => m[0].toUpperCase().replace(/[\s-]+/g, ' '));
  // In the order the query names them.
  return {
    live: live.sort((a, b) => a.at - b.at || a.name.localeCompare(b.name)).map((g) => g.name),
    counts,
    other: [...new Set(other)],
  };
}

function distinctiveParts(name: string): string[] {
  return name
    .toLowerCase()
    .split('_')
    .filter(
      (part) =>
        /\d/.test(part) && part.length >= 2 && !/^\d+gb$/.test(part) && !/^(?:sxm|pcie|nvl|hbm)\d*e?$/.test(part),
    );
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
