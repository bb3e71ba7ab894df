/**
 * Country names and the regions people say ("EU", "Europe") as the ISO 3166-1 alpha-2 codes machines are listed
 * under (SPEC 1.2 location filter), for reading locations out of a recommendation query (SPEC 2.13).
 *
 * English names come from the runtime's ICU data (`Intl.DisplayNames`), so the list is complete without a table of
 * 249 rows to maintain; codes ICU also names but that are not assigned countries (deprecated, exceptionally
 * reserved, macro-regions, test codes) are left out.
 */
import { onFirstUse } from '../../lib/on-first-use.js';

const NOT_COUNTRIES = new Set([
  'AC',
  'AN',
  'BU',
  'CP',
  'CQ',
  'CS',
  'DD',
  'DG',
  'DY',
  'EA',
  'EU',
  'EZ',
  'FX',
  'HV',
  'IC',
  'NH',
  'QO',
  'RH',
  'SU',
  'TA',
  'TP',
  'UK',
  'UN',
  'VD',
  'XA',
  'XB',
  'XK',
  'YD',
  'YU',
  'ZR',
  'ZZ',
]);

/** The 27 member states of the European Union. */
const EU = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];
/** "Europe" as renters mean it for latency and data residency: the EU, the EEA and the UK and Switzerland. */
const EUROPE = [...EU, 'GB', 'NO', 'IS', 'LI', 'CH'];

/** Names people use that ICU spells otherwise ("Türkiye", "Czechia", "Hong Kong SAR China"), and short forms. */
const COUNTRY_ALIASES: Record<string, string> = {
  'united states of america': 'US',
  usa: 'US',
  // US states whose names hold another country's: the longer name wins (see PLACES).
  'new jersey': 'US',
  'new mexico': 'US',
  uk: 'GB',
  britain: 'GB',
  'great britain': 'GB',
  england: 'GB',
  scotland: 'GB',
  holland: 'NL',
  turkey: 'TR',
  'czech republic': 'CZ',
  'hong kong': 'HK',
  macau: 'MO',
  uae: 'AE',
  korea: 'KR',
  'ivory coast': 'CI',
};

/** Regions people name as one place. */
const REGIONS: Record<string, Place> = {
  eu: { label: 'the EU', codes: EU },
  'european union': { label: 'the EU', codes: EU },
  europe: { label: 'Europe', codes: EUROPE },
  european: { label: 'Europe', codes: EUROPE },
  'north america': { label: 'North America', codes: ['US', 'CA'] },
};

export interface Place {
  /** How the recommendation text names it: "Germany", "the EU". */
  label: string;
  codes: readonly string[];
}

function assignedCodes(): Map<string, string> {
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  const byCode = new Map<string, string>();
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (NOT_COUNTRIES.has(code)) continue;
      const name = names.of(code);
      if (name !== undefined && name !== code) byCode.set(code, name);
    }
  }
  return byCode;
}

/**
 * Read from ICU on first use, not at start: looking up every region's name maps about 5 MB of the runtime's ICU data
 * into the process, which only a recommendation needs (bench/README.md, "Memory").
 */
const assignedCountries = onFirstUse(assignedCodes);

/** Names said with "the" ("in the United States"). */
const WITH_ARTICLE =
  /^(?:United |Netherlands$|Philippines$|Bahamas$|Gambia$|Maldives$|Dominican Republic$|Central African Republic$)/;

/** A country by its code ("DE" → Germany, "US" → the United States). */
export function countryPlace(code: string): Place {
  const name = assignedCountries().get(code) ?? code;
  return { label: WITH_ARTICLE.test(name) ? `the ${name}` : name, codes: [code] };
}

/** Whether a code is an assigned country ("DE"), so a bare code after "in" can be trusted. */
export function isCountryCode(code: string): boolean {
  return assignedCountries().has(code);
}

/** Lower-case place name → the place; longest names first, so "south korea" is read before "korea". */
export function namedPlaces(): readonly (readonly [string, Place])[] {
  return [
    ...[...assignedCountries()].map(([code, name]) => [name.toLowerCase(), countryPlace(code)] as const),
    ...Object.entries(COUNTRY_ALIASES).map(([name, code]) => [name, countryPlace(code)] as const),
    ...Object.entries(REGIONS),
  ].sort((x, y) => y[0].length - x[0].length);
}

/** Upper-case codes that stand alone in a query as places ("US servers", "UK only") rather than as other abbreviations. */
const STANDALONE_CODES: Record<string, string> = { US: 'US', USA: 'US', UK: 'GB' };

/** The place such a code names: US, USA and UK their country, EU the union. */
export function standalonePlace(word: string): Place {
  return word === 'EU' ? REGIONS.eu! : countryPlace(STANDALONE_CODES[word] ?? word);
}
