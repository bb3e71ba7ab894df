import type { MediaKind } from '../../adapters/upstream/index.js';
import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';

/** What a media request resolves to: the row billed, what the upstream is asked, and the worst case it costs. */
export interface MediaPlan {
  entry: CatalogFileEntry;
  /** The container delivered. */
  outputFormat: string;
  /** Sent to the provider (MediaCall.params). */
  params: Record<string, unknown>;
  /** The request as rendered, echoed in the kickoff receipt (SPEC 2.12 `inputs`). */
  inputs: Record<string, unknown>;
  unit: 'character' | 'second' | 'credit' | 'clip';
  /** The units the hold covers. */
  units: number;
  /** The worst case at the caller's price: held at kickoff. */
  holdMicros: Micros;
  /** Video: the resolved parameters shown on every poll (SPEC 2.8 `config`). */
  config?: Record<string, unknown>;
  /** How long hosted inputs live from kickoff, when longer than the record (a draft's, for its final). */
  keepInputsMs?: number;
}

/** What was measured of a hosted media input: its pixels, and for a video its length. */
export interface MeasuredInput {
  width: number | null;
  height: number | null;
  seconds?: number;
}

/** The measured inputs of a request, by field. */
export type Measured = Readonly<Record<string, MeasuredInput>>;

/** A media input of a request (a link or data URI in one of its fields), hosted by us before dispatch. */
export interface MediaField {
  /** The field, `reference_image_urls.2` for an item of a list. */
  field: string;
  url: string;
  kind: 'image' | 'video';
}

/** What the bytes of a delivered file are (sniffed, never the vendor's label) and how long they play. */
export interface MediaProbe {
  format: string;
  mimeType: string;
  durationSeconds: number | null;
  /** Pixels, for images and video (a restoration is billed by its output pixels). */
  width?: number | null;
  height?: number | null;
}

/** A delivered file, hosted by us. */
export interface DeliveredMedia extends MediaProbe {
  name: string;
  url: string;
}

/** What one kind of media job (speech, music, video, restoration) decides; the job engine does the rest. */
export interface MediaRules<Request> {
  /** What is rendered (the routing need and the providers' `mediaFormats` key). */
  kind: MediaKind;
  /** The job kind in the store, when two kinds of request render the same kind of media (restoration of images, of video). */
  jobKind?: string;
  retentionMs: number;
  /** Independent content-policy refusals that make a verdict (SPEC 7.5: two for video); default one. */
  refusalsForVerdict?: number;
  /** Whether a failed job says its typed cause (`error_code`, SPEC 7.5); music failures carry only `error`. */
  typedFailures: boolean;
  /**
   * Checks the request up front (400 naming the field) and prices its worst case at `discounts`. With `measured`
   * (its inputs hosted), a price that depends on them (a restoration's output pixels) is exact, and inputs the hold
   * could not cover are refused (400 upstream_validation_error naming the field).
   */
  plan(catalog: ModelCatalog, request: Request, discounts: CallerDiscounts, measured?: Measured): MediaPlan;
  /** The media inputs of a request, hosted before dispatch (none: the kind takes no media). */
  mediaFields?(request: Request): MediaField[];
  /**
   * What the delivered files cost at `discounts`: the units billed and their price (never above the hold).
   * `measured`: the hosted inputs (a reference video billed by its length).
   */
  charge(
    plan: MediaPlan,
    delivered: readonly DeliveredMedia[],
    discounts: CallerDiscounts,
    measured: Measured,
  ): { units: number; micros: Micros };
  /** Sniffs a delivered file; null when it is not what this kind delivers. */
  probe(bytes: Buffer): Promise<MediaProbe | null>;
}
