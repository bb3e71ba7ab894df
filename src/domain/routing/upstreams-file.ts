import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * The upstreams file (DESIGN.md 3 "Upstreams"): which vendor endpoints exist and which of them serve each catalog
 * slug, at what wholesale cost. Read once at start; a bad file stops the service with every problem named by
 * line and field, instead of failing requests later.
 */

const providerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, "_", "." or "-"');
const positiveMs = z.number().int().positive();
/** Only the env var's NAME lives in the file: keys stay out of the repository and out of logs. */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable');
/** The provider appends its operation path: openai `/chat/completions`, cohere-rerank `/v1/rerank`, tei-rerank `/rerank`, openai-images `/images/generations`. */
const baseUrl = z.url({
  protocol: /^https?$/,
  error: (issue) => (issue.input === undefined ? 'is required for an HTTP provider' : 'must be an http(s) URL'),
});

/** One strict object per type, so a field that type does not use (e.g. `streams` on a reranker) is an error. */
const providerSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('sandbox') }),
  z.strictObject({
    type: z.literal('openai'),
    base_url: baseUrl,
    api_key_env: envName.optional(),
    /** false for an upstream that cannot stream chat (SPEC 7.2 no_streaming_upstream). */
    streams: z.boolean().optional(),
    budget_ms: positiveMs.optional(),
    idle_timeout_ms: positiveMs.optional(),
    /** The chat field the output cap goes in (SPEC 4.2: every request carries one). */
    output_cap_field: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  }),
  z.strictObject({
    type: z.literal('cohere-rerank'),
    base_url: baseUrl,
    api_key_env: envName.optional(),
    budget_ms: positiveMs.optional(),
  }),
  /** api_key_env: for a TEI started with `--api-key`. */
  z.strictObject({
    type: z.literal('tei-rerank'),
    base_url: baseUrl,
    api_key_env: envName.optional(),
    budget_ms: positiveMs.optional(),
  }),
  /** An OpenAI-style images API (`/images/generations`). */
  z.strictObject({
    type: z.literal('openai-images'),
    base_url: baseUrl,
    api_key_env: envName.optional(),
    budget_ms: positiveMs.optional(),
  }),
  /** A fal.ai-style queue API (submit, status, result) for media renders; `formats`: the containers it delivers per kind. */
  z.strictObject({
    type: z.literal('fal-queue'),
    base_url: baseUrl,
    api_key_env: envName.optional(),
    budget_ms: positiveMs.optional(),
    formats: z
      .strictObject({
        audio: z.array(z.string().min(1)).min(1).optional(),
        music: z.array(z.string().min(1)).min(1).optional(),
        video: z.array(z.string().min(1)).min(1).optional(),
        restoration: z.array(z.string().min(1)).min(1).optional(),
      })
      .refine(
        (formats) => Object.keys(formats).length > 0,
        'must name the containers of at least one kind (audio, music, video, restoration)',
      ),
  }),
]);

const usd = z.number().nonnegative();
const costSchema = z.strictObject({
  input_usd_per_mtok: usd.optional(),
  output_usd_per_mtok: usd.optional(),
  usd_per_request: usd.optional(),
});

const routeSchema = z.strictObject({
  provider: providerName,
  /** The model id at the upstream, which is often not our slug. */
  model: z.string().min(1),
  cost: costSchema.optional(),
  /** Whether this upstream bills cached input at a discount (SPEC 2.6). */
  cached_input_discount: z.boolean().optional(),
});

/** A key left with only commented-out entries under it reads as null: treat it as empty. */
const fileSchema = z.strictObject({
  providers: z.record(providerName, providerSchema),
  /** An empty list is deliberate: the slug is not routed even when a default_route exists. */
  routes: z
    .record(z.string().min(1), z.array(routeSchema))
    .nullish()
    .transform((v) => v ?? {}),
  default_route: z
    .strictObject({ provider: providerName, cost: costSchema.optional() })
    .nullish()
    .transform((v) => v ?? undefined),
  /** SPEC 7.2 model_disabled: administratively disabled platform-wide. */
  disabled_models: z
    .array(z.string().min(1))
    .nullish()
    .transform((v) => v ?? []),
});

export type UpstreamsFile = z.output<typeof fileSchema>;
export type ProviderConfig = UpstreamsFile['providers'][string];
export type RouteConfig = z.output<typeof routeSchema>;
export type RouteCost = z.output<typeof costSchema>;

type Path = readonly PropertyKey[];
interface Problem {
  path: Path;
  message: string;
}

export class UpstreamsFileError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`Invalid upstreams file ${source}:\n  ${problems.join('\n  ')}`);
    this.name = 'UpstreamsFileError';
  }
}

/** Where the file sends traffic to a sandbox provider: `default_route` and `routes.<slug>`, for the production check. */
export function sandboxUses(file: UpstreamsFile): string[] {
  const isSandbox = (provider: string) => file.providers[provider]?.type === 'sandbox';
  const uses = Object.entries(file.routes)
    .filter(([, routes]) => routes.some((route) => isSandbox(route.provider)))
    .map(([slug]) => `routes.${slug}`);
  return file.default_route !== undefined && isSandbox(file.default_route.provider) ? ['default_route', ...uses] : uses;
}

/** Parses and checks the file's text; `source` names it in the errors. */
export function parseUpstreamsFile(text: string, source = 'upstreams file'): UpstreamsFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new UpstreamsFileError(
      source,
      doc.errors.map((e) => `${source}:${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0] ?? ''}`),
    );
  }
  const fail = (problems: Problem[]): never => {
    throw new UpstreamsFileError(
      source,
      problems.map((p) => `${source}:${lineOf(doc, lineCounter, p.path)}: ${dotted(p.path)}: ${p.message}`),
    );
  };
  const parsed = fileSchema.safeParse(doc.toJS());
  if (!parsed.success) return fail(parsed.error.issues.map(toProblem));
  const problems = crossReferenceProblems(parsed.data);
  if (problems.length > 0) fail(problems);
  return parsed.data;
}

/** An unknown key is reported at the key itself, so the line number points at the typo. */
function toProblem(issue: z.core.$ZodIssue): Problem {
  if (issue.code === 'unrecognized_keys') {
    const message = issue.keys.length === 1 ? 'unknown field' : `unknown fields: ${issue.keys.join(', ')}`;
    return { path: [...issue.path, issue.keys[0] ?? ''], message };
  }
  return { path: issue.path, message: issue.message };
}

/** What the schema cannot see: names that must refer to a declared provider, and duplicated routes. */
function crossReferenceProblems(file: UpstreamsFile): Problem[] {
  const problems: Problem[] = [];
  const declared = Object.keys(file.providers);
  const unknown = (name: string) => `unknown provider "${name}" (declared: ${declared.join(', ') || 'none'})`;
  for (const [slug, routes] of Object.entries(file.routes)) {
    const seen = new Set<string>();
    routes.forEach((route, index) => {
      if (!(route.provider in file.providers))
        problems.push({ path: ['routes', slug, index, 'provider'], message: unknown(route.provider) });
      const key = `${route.provider}\u0000${route.model}`;
      if (seen.has(key))
        problems.push({
          path: ['routes', slug, index],
          message: `duplicates an earlier route (${route.provider}, ${route.model})`,
        });
      seen.add(key);
    });
  }
  const fallback = file.default_route;
  if (fallback !== undefined && !(fallback.provider in file.providers)) {
    problems.push({ path: ['default_route', 'provider'], message: unknown(fallback.provider) });
  }
  return problems;
}

function dotted(path: Path): string {
  if (path.length === 0) return '(top level)';
  return path
    .map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : `${i === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/** "line:col" of the deepest node of `path` that exists in the document (a missing field points at its parent). */
function lineOf(doc: Document, lineCounter: LineCounter, path: Path): string {
  let node: unknown = doc.contents;
  let offset = startOf(node) ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
      if (pair === undefined) break;
      offset = startOf(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = startOf(node) ?? offset;
    } else {
      break;
    }
  }
  const { line, col } = lineCounter.linePos(offset);
  return `${line}:${col}`;
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: readonly number[] | null }).range;
  return range?.[0];
}
