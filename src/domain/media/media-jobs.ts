import type { components } from '../../../generated/openapi.js';
import type { BlobStore } from '../../adapters/blob-store/index.js';
import { inspectImage } from '../../adapters/image-codec/sharp-images.js';
import type { JobRecord } from '../../adapters/job-store/index.js';
import type { MediaLoader } from '../../adapters/media-fetch/index.js';
import {
  type MediaOutput,
  type MediaTaskState,
  UpstreamError,
  type UpstreamFailure,
} from '../../adapters/upstream/index.js';
import { probeVideo } from '../../adapters/video-codec/video-files.js';
import { ApiError, invalidField, orUnavailable } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { microsToUsd } from '../billing/money.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { loadInput, unusable } from '../images/references.js';
import { jobFailure } from '../jobs/job-failure.js';
import type { JobRunner, JobWork } from '../jobs/job-runner.js';
import {
  completeCharged,
  failReleased,
  type HeldMoney,
  heldMoney,
  type JobShown,
  type JobStepDeps,
  jobHead,
  ownedJob,
  reservationOf,
} from '../jobs/job-steps.js';
import type { Principal } from '../keys/authenticator.js';
import { NO_DISCOUNTS } from '../pricing/index.js';
import { isInputRejection } from '../routing/classify.js';
import type { Route, RouteTable } from '../routing/route-table.js';
import type { FileLinks } from './file-links.js';
import type { DeliveredMedia, Measured, MeasuredInput, MediaPlan, MediaRules } from './media-rules.js';

type MediaJobView = components['schemas']['MediaJob'];
type MediaEstimate = components['schemas']['MediaEstimate'];

export interface MediaJobSettings {
  /** A job's budget from kickoff: past it, it fails (generation_failed) with nothing charged. */
  budgetMs: number;
  /** How often a running render is polled. */
  pollMs: number;
  /** A render at 0 % (or with no progress reported) this long is given up on that route (SPEC 3.1 watchdog). */
  stallMs: number;
}

export interface MediaJobOptions {
  /** Called once a job's answer is recorded (a video draft becomes finalisable). */
  onCompleted?: (job: JobRecord) => Promise<void>;
}

export interface MediaJobDeps extends JobStepDeps {
  catalog: ModelCatalog;
  routes: RouteTable;
  runner: JobRunner;
  media: MediaLoader;
  blobs: BlobStore;
  fileLinks: FileLinks;
  settings: MediaJobSettings;
}

/** The upstream task a job is waiting on: which route, the upstream's id for it, and when it started. */
interface Task {
  provider: string;
  id: string;
  started_at_ms: number;
}

/** What a media job's record keeps (JSON): enough for any process to resume it after this one died. */
interface MediaJobData<Request> extends HeldMoney, JobShown {
  inputs: Record<string, unknown>;
  config?: Record<string, unknown>;
  /** The request, its media fields replaced by the links of their hosted copies. */
  request: Request;
  /** What was measured of each media input, by field (a restoration's pixels, a reference video's length). */
  measured: Measured;
  /** Shown once the job completed (a video draft's offer of its final). */
  on_completion?: Record<string, unknown>;
  /** Content-policy refusals so far (video needs two independent ones for a verdict, SPEC 7.5). */
  refusals?: number;
  /** The routes started so far, in order; the last one is being waited on while `task` is set. */
  tried: string[];
  task?: Task | null;
  progress?: number | null;
  /** Checkpoint: the files are hosted (a resumed job charges them, never renders again). */
  delivery?: { provider: string; outputs: DeliveredMedia[] };
  usage?: MediaJobView['usage'];
  cost_usd?: number;
  balance_usd?: number;
}

/** The lease went to another worker: stop here, it carries on from the record. */
class LeaseLost extends Error {}

/**
 * Media jobs rendered as upstream tasks (SPEC 3.1: speech, music, video, restoration), one kind per instance, its
 * rules (`MediaRules`) deciding what a request is and costs. At kickoff: checked, priced and held (402 before
 * anything starts), then started on the cheapest route that can deliver the container asked for (503
 * `provider_unavailable` when none accepts it; nothing charged). In the background: the task polled until it
 * delivers, stalls (the watchdog) or fails; a failure other than a content-policy refusal moves to the next route;
 * the files fetched (SSRF-safely), sniffed (a vendor's label is not trusted) and hosted by us; then charged once,
 * on delivery, by what was delivered. The upstream task id is in the record before it is polled, so a process that
 * dies mid-job loses nothing: another resumes polling the task it started, and a failed download or hosting step
 * is retried on the same task, never rendered again.
 */
export class MediaJobs<Request> implements JobWork {
  constructor(
    private readonly rules: MediaRules<Request>,
    private readonly deps: MediaJobDeps,
    private readonly options: MediaJobOptions = {},
  ) {
    deps.runner.register(rules.jobKind ?? rules.kind, this);
  }

  /** What the job store calls these jobs (polls of another kind's job are 404). */
  private get jobKind(): string {
    return this.rules.jobKind ?? this.rules.kind;
  }

  /** The plan of a request at the caller's prices (its checks included): what a kickoff would hold. */
  plan(principal: Principal, request: Request): MediaPlan {
    return this.rules.plan(this.deps.catalog, request, principal.account);
  }

  /** SPEC 4.3: the kickoff's checks and price, at list price and at the caller's; nothing held or started. */
  estimate(principal: Principal, request: Request): MediaEstimate {
    const listed = this.rules.plan(this.deps.catalog, request, NO_DISCOUNTS);
    this.chain(listed); // a kickoff's route verdicts too: an unavailable model or container is refused, not priced
    const own = this.rules.plan(this.deps.catalog, request, principal.account);
    return {
      model: listed.entry.slug,
      unit: listed.unit,
      units: listed.units,
      estimated_cost_usd: microsToUsd(listed.holdMicros),
      discounted_cost_usd: microsToUsd(own.holdMicros),
    };
  }

  /**
   * Kicks a job off. `onCompletion`: fields its completed poll shows besides the result (a draft's offer); `id`: the
   * job's id, when the caller claimed one first (a draft's final). Answers the receipt, with the job's record for
   * callers that keep more about it.
   */
  async start(
    principal: Principal,
    request: Request,
    onCompletion?: Record<string, unknown>,
    id = newId('job'),
  ): Promise<{ view: MediaJobView; job: JobRecord }> {
    const { deps } = this;
    const asked = this.rules.plan(deps.catalog, request, principal.account);
    const chain = this.chain(asked);
    // Inputs are downloaded only for an account that can pay what the request asks, before its exact price is known.
    const hasInputs = (this.rules.mediaFields?.(request) ?? []).length > 0;
    if (hasInputs) await deps.billing.assertCanPay(principal, asked.holdMicros);
    const nowMs = deps.now();
    const expiresAtMs = nowMs + this.rules.retentionMs;
    const job: JobRecord = {
      id,
      accountId: principal.accountId,
      kind: this.jobKind,
      status: 'pending',
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs,
      data: {},
    };
    const shown = {
      model: asked.entry.slug,
      inputs: asked.inputs,
      ...(asked.config === undefined ? {} : { config: asked.config }),
    };
    let hosted: Awaited<ReturnType<MediaJobs<Request>['hostInputs']>>;
    let plan: MediaPlan;
    try {
      hosted = await this.hostInputs(id, request, nowMs + (asked.keepInputsMs ?? this.rules.retentionMs));
      plan = hasInputs ? this.rules.plan(deps.catalog, hosted.request, principal.account, hosted.measured) : asked;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // SPEC 7.4: media that cannot be used fail the job (nothing was held); the client polls the verdict.
      const failed: JobRecord = {
        ...job,
        status: 'failed',
        data: {
          ...shown,
          estimated_cost_usd: microsToUsd(asked.holdMicros),
          ...jobFailure(err, deps.settings.budgetMs),
        },
      };
      await orUnavailable(() => deps.jobs.create(failed), 'job store');
      return { view: this.view(failed), job: failed };
    }
    const reservation = await deps.billing.reserve(principal, id, plan.holdMicros, { durable: true });
    const data: MediaJobData<Request> = {
      ...shown,
      inputs: plan.inputs,
      estimated_cost_usd: microsToUsd(reservation.amountMicros),
      ...heldMoney(reservation),
      request: hosted.request,
      measured: hosted.measured,
      tried: [],
      ...(onCompletion === undefined ? {} : { on_completion: onCompletion }),
    };
    job.data = data as unknown as Record<string, unknown>;
    try {
      await orUnavailable(() => deps.runner.create(job), 'job store');
    } catch (err) {
      await deps.billing.release(reservation);
      throw err;
    }
    try {
      await this.startNext(job, data, plan, chain, null, new AbortController().signal);
    } catch (err) {
      // Recorded (and the money released) while this process still holds the lease; tried once while the client
      // waits: a record left behind is found by the lease scan, which tries the routes not tried yet.
      await failReleased(deps, job, reservation, err, deps.settings.budgetMs, AbortSignal.abort());
      await deps.runner.giveBack(id).catch((giveBackErr: unknown) => deps.onUnexpected(giveBackErr, id));
      // SPEC 7.5: a refusal on content policy or of the input is the job's verdict; no route starting is the kickoff's (7.2).
      if (err instanceof ApiError && (err.code === 'content_filter' || err.code === 'upstream_validation_error'))
        return this.answer(job);
      throw new ApiError('provider_unavailable');
    }
    // The job exists, its money is held and its render started: from here the kickoff succeeds; a queue that cannot
    // be reached leaves the job to the lease scan.
    await deps.runner.dispatch(job.id).catch((err: unknown) => deps.onUnexpected(err, id));
    return this.answer(job);
  }

  async get(principal: Principal, jobId: string): Promise<{ view: MediaJobView; job: JobRecord }> {
    const job = await ownedJob(this.deps, principal, jobId, this.jobKind);
    return { view: this.view(job), job };
  }

  /** Polls the task it started (or the one a dead worker started) until the files are delivered, then charges. */
  async advance(stale: JobRecord, lost: AbortSignal): Promise<void> {
    const { deps } = this;
    const job = await deps.jobs.get(stale.id, deps.now());
    if (job === null || job.status === 'completed' || job.status === 'failed') return;
    const data = job.data as unknown as MediaJobData<Request>;
    const reservation = reservationOf(job.id, data);
    let plan: MediaPlan;
    let delivery = data.delivery;
    if (delivery === undefined) {
      const stopKeepingAlive = deps.billing.keepAlive(reservation);
      try {
        plan = this.rules.plan(deps.catalog, data.request, data.owner.account, data.measured);
        delivery = await this.render(job, data, plan, lost);
      } catch (err) {
        if (!(err instanceof LeaseLost) && !lost.aborted)
          await failReleased(deps, job, reservation, err, deps.settings.budgetMs, lost);
        return;
      } finally {
        stopKeepingAlive();
      }
    } else {
      plan = this.rules.plan(deps.catalog, data.request, data.owner.account, data.measured);
    }
    const delivered = delivery;
    const charge = this.rules.charge(plan, delivered.outputs, data.owner.account, data.measured);
    const details = {
      model: plan.entry.slug,
      kind: this.rules.kind,
      endpoint: `${this.jobKind}.jobs`,
      metadata: { provider: delivered.provider, [plan.unit]: charge.units },
    };
    await completeCharged(
      deps,
      job,
      reservation,
      { micros: charge.micros, details },
      (charged) => ({
        delivery: delivered,
        usage: { model: plan.entry.slug, unit: plan.unit, units: charge.units, cost: microsToUsd(charged) },
      }),
      lost,
    );
    await this.options.onCompleted?.(job).catch((err: unknown) => deps.onUnexpected(err, job.id));
  }

  /**
   * Fetches (SSRF-safely), sniffs and hosts every media input of a request, and answers the request with their
   * links in its fields (SPEC 2.12: data URIs and mislabelled links reach the model as real, typed links), and the
   * seconds of each video. One that cannot be used is 400 `upstream_validation_error` naming it.
   */
  private async hostInputs(
    id: string,
    request: Request,
    expiresAtMs: number,
  ): Promise<{ request: Request; measured: Measured }> {
    const { deps } = this;
    const hosted = structuredClone(request) as Record<string, unknown>;
    const measured: Record<string, MeasuredInput> = {};
    const fields = this.rules.mediaFields?.(request) ?? [];
    await Promise.all(
      fields.map(async ({ field, url, kind }, i) => {
        // A file we host already (a draft's inputs, reused by its final) is read from the store, not fetched.
        const ours = deps.fileLinks.hostedName(url, deps.now());
        const stored = ours === null ? null : await deps.blobs.get(ours, deps.now());
        const bytes = stored?.bytes ?? (await loadInput(deps.media, field, url));
        const probe = kind === 'image' ? await inspectImage(bytes) : await probeVideo(bytes);
        if (probe === null)
          throw unusable(
            field,
            `not ${kind === 'image' ? 'an image' : 'a video'}`,
            kind === 'image' ? 'not_an_image' : 'not_a_video',
          );
        if (stored === null) {
          const name = `${id}-in-${i}.${probe.format}`;
          await deps.blobs.put(name, bytes, { contentType: probe.mimeType, expiresAtMs });
          setField(hosted, field, deps.fileLinks.link(name, expiresAtMs));
        }
        measured[field] = {
          width: probe.width,
          height: probe.height,
          ...('durationSeconds' in probe ? { seconds: probe.durationSeconds } : {}),
        };
      }),
    );
    return { request: hosted as Request, measured };
  }

  /** The routes that can deliver the plan's container, cheapest first; none: 400 naming those the model's routes can. */
  private chain(plan: MediaPlan): Route[] {
    const chain = this.deps.routes.chain(plan.entry.slug, this.rules.kind);
    const able = chain.filter((route) => route.provider.mediaFormats?.[this.rules.kind]?.includes(plan.outputFormat));
    if (able.length > 0) return able;
    const deliverable = [...new Set(chain.flatMap((route) => route.provider.mediaFormats?.[this.rules.kind] ?? []))];
    throw invalidField(['body', 'output_format'], `${plan.entry.slug} can deliver ${deliverable.join(', ')} here`);
  }

  /**
   * Starts the render on the next route not tried yet and records its task; a route that refuses is skipped. No
   * route left: the last failure. A content-policy refusal is final once the kind's count of them is reached.
   */
  private async startNext(
    job: JobRecord,
    data: MediaJobData<Request>,
    plan: MediaPlan,
    chain: Route[],
    failure: unknown,
    lost: AbortSignal,
  ): Promise<Task> {
    const { deps } = this;
    let last = failure;
    for (const route of chain.filter((r) => !data.tried.includes(r.providerName))) {
      data.tried = [...data.tried, route.providerName];
      try {
        const id = await route.provider.startMedia!({
          kind: this.rules.kind,
          upstreamModel: route.upstreamModel,
          outputFormat: plan.outputFormat,
          params: plan.params,
          signal: lost,
          deadlineAtMs: job.createdAtMs + deps.settings.budgetMs,
        });
        const task: Task = { provider: route.providerName, id, started_at_ms: deps.now() };
        await this.checkpoint(
          job,
          { tried: data.tried, task, progress: null, refusals: data.refusals ?? 0 },
          'processing',
        );
        return task;
      } catch (err) {
        if (err instanceof UpstreamError && isInputRejection(err.failure)) throw inputRejected(err);
        last = err instanceof UpstreamError && isContentRefusal(err.failure) ? this.refused(data, err) : err;
      }
    }
    await this.checkpoint(job, { tried: data.tried, task: null, refusals: data.refusals ?? 0 }, 'processing');
    throw asFailure(last);
  }

  /**
   * Counts a content-policy refusal (SPEC 7.5): the verdict once the kind's number of independent refusals is
   * reached (video: two upstreams; every other kind: the first), thrown; before that, the failure to move on with.
   */
  private refused(data: MediaJobData<Request>, err: UpstreamError): ApiError {
    data.refusals = (data.refusals ?? 0) + 1;
    const verdict = contentRefusal(err);
    if (data.refusals >= (this.rules.refusalsForVerdict ?? 1)) throw verdict;
    return verdict;
  }

  private async render(
    job: JobRecord,
    data: MediaJobData<Request>,
    plan: MediaPlan,
    lost: AbortSignal,
  ): Promise<NonNullable<MediaJobData<Request>['delivery']>> {
    const { deps } = this;
    const chain = this.chain(plan);
    const deadlineAtMs = job.createdAtMs + deps.settings.budgetMs;
    let task = data.task ?? (await this.startNext(job, data, plan, chain, null, lost));
    let progress = data.progress ?? null;
    for (;;) {
      if (lost.aborted) throw new LeaseLost();
      if (deps.now() >= deadlineAtMs) throw new ApiError('render_timeout');
      const route = chain.find((r) => r.providerName === task.provider);
      const state: MediaTaskState | null =
        route === undefined
          ? {
              state: 'failed',
              failure: {
                kind: 'http',
                status: 503,
                message: 'the route that started this render is no longer configured',
              },
            }
          : await route.provider.pollMedia!(task.id, {
              upstreamModel: route.upstreamModel,
              signal: lost,
              deadlineAtMs,
            }).catch((err: unknown) => {
              if (err instanceof UpstreamError && err.failure.kind !== 'aborted') return null; // asking failed: ask again next time
              throw err;
            });
      if (state?.state === 'completed') {
        const outputs = await this.host(job, state.outputs, plan);
        if (outputs === 'retry') {
          await this.sleep(lost);
          continue;
        }
        if (outputs !== null) {
          const delivery = { provider: task.provider, outputs };
          await this.checkpoint(job, { delivery }, 'processing');
          return delivery;
        }
        task = await this.startNext(
          job,
          data,
          plan,
          chain,
          new ApiError('upstream_bad_response', `An upstream delivered something that is not ${this.rules.kind}`),
          lost,
        );
        progress = null;
        continue;
      }
      if (state?.state === 'failed') {
        const failure = new UpstreamError(state.failure);
        if (isInputRejection(state.failure)) throw inputRejected(failure);
        task = await this.startNext(
          job,
          data,
          plan,
          chain,
          isContentRefusal(state.failure) ? this.refused(data, failure) : failure,
          lost,
        );
        progress = null;
        continue;
      }
      if (state?.state === 'running' && state.progress !== null && state.progress !== progress) {
        progress = state.progress;
        await this.checkpoint(job, { progress }, 'processing');
      }
      if ((progress ?? 0) === 0 && deps.now() - task.started_at_ms >= deps.settings.stallMs) {
        const minutes = Math.round(deps.settings.stallMs / 60_000);
        task = await this.startNext(
          job,
          data,
          plan,
          chain,
          new ApiError(
            'upstream_server_error',
            `The render stayed at 0 % for ${minutes} minutes; nothing was charged. Kick it off again`,
          ),
          lost,
        );
        progress = null;
        continue;
      }
      await this.sleep(lost);
    }
  }

  /**
   * Fetches, sniffs and hosts a task's outputs. 'retry' when fetching or hosting failed (the same task is asked
   * again: never a second render for a failed delivery); null when the bytes are not what this kind delivers.
   */
  private async host(
    job: JobRecord,
    outputs: MediaOutput[],
    plan: MediaPlan,
  ): Promise<DeliveredMedia[] | 'retry' | null> {
    const { deps } = this;
    if (outputs.length === 0) return null;
    try {
      const files = await Promise.all(
        outputs.map(async (output) => ('bytes' in output ? output.bytes : (await deps.media.load(output.url)).bytes)),
      );
      const probes = await Promise.all(files.map((bytes) => this.rules.probe(bytes)));
      if (probes.some((probe) => probe === null || probe.format !== plan.outputFormat)) return null;
      return await Promise.all(
        files.map(async (bytes, i) => {
          const probe = probes[i]!;
          const name = `${job.id}-${i}.${probe.format}`;
          await deps.blobs.put(name, bytes, { contentType: probe.mimeType, expiresAtMs: job.expiresAtMs });
          return { ...probe, name, url: deps.fileLinks.link(name, job.expiresAtMs) };
        }),
      );
    } catch (err) {
      deps.onUnexpected(err, job.id);
      return 'retry';
    }
  }

  private async checkpoint(job: JobRecord, data: Record<string, unknown>, status: 'processing'): Promise<void> {
    const next = await this.deps.jobs.transition(
      job.id,
      ['pending', 'processing'],
      { status, data },
      this.deps.now(),
      this.deps.owner,
    );
    if (next === null) throw new LeaseLost(); // taken over, finished or expired meanwhile: nothing left to do here
  }

  /** The poll payload (SPEC 2.8); without `error_code` for kinds that do not type their failures. */
  private view(job: JobRecord): MediaJobView {
    const answer = view(job);
    if (!this.rules.typedFailures) delete answer.error_code;
    return answer;
  }

  /** The receipt, from the record as it is now (or as this process last wrote it, if the store cannot say). */
  private async answer(job: JobRecord): Promise<{ view: MediaJobView; job: JobRecord }> {
    const current = (await this.deps.jobs.get(job.id, this.deps.now()).catch(() => null)) ?? job;
    return { view: this.view(current), job: current };
  }

  private sleep(lost: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.deps.settings.pollMs);
      function done() {
        clearTimeout(timer);
        lost.removeEventListener('abort', done);
        resolve();
      }
      lost.addEventListener('abort', done, { once: true });
    });
  }
}

function isContentRefusal(failure: UpstreamFailure): boolean {
  return failure.kind === 'http' && failure.contentFilter === true;
}

/** SPEC 7.5 input_rejected: the model refused the input media; not re-routed, the reason in `error`. */
function inputRejected(err: UpstreamError): ApiError {
  return new ApiError('upstream_validation_error', `The model refused the input: ${err.message}`);
}

function contentRefusal(err: UpstreamError): ApiError {
  return new ApiError('content_filter', `The upstream refused the input on its content policy: ${err.message}`);
}

/**
 * What ends a job whose routes are exhausted (SPEC 7.5 generation_failed), from the last route's failure: our own
 * verdicts as they are, an upstream's without its details (they name vendors and their internals).
 */
function asFailure(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof UpstreamError)
    return new ApiError('provider_unavailable', 'Every route failed to render this job; nothing was charged');
  return err ?? new ApiError('provider_unavailable');
}

/** The poll payload (SPEC 2.8) from the record. */
function view(job: JobRecord): MediaJobView {
  const data = job.data as unknown as MediaJobData<unknown>;
  const answer: MediaJobView = { ...jobHead(job, data), inputs: data.inputs };
  if (data.config !== undefined) answer.config = data.config;
  if (job.status === 'processing' && data.progress !== undefined) answer.progress = data.progress;
  if (job.status !== 'completed' || data.delivery === undefined || data.cost_usd === undefined) return answer;
  return {
    ...answer,
    cost_usd: data.cost_usd,
    ...(data.balance_usd === undefined ? {} : { balance_usd: data.balance_usd }),
    outputs: data.delivery.outputs.map(({ url, mimeType, format, durationSeconds }) => ({
      url,
      mime_type: mimeType,
      format,
      duration_seconds: durationSeconds,
    })),
    ...(data.usage === undefined ? {} : { usage: data.usage }),
    ...data.on_completion,
  };
}

/** Sets `field` (`name`, or `list.2` for an item of a list) of a request. */
function setField(request: Record<string, unknown>, field: string, value: string): void {
  const [name, index] = field.split('.') as [string, string | undefined];
  if (index === undefined) request[name] = value;
  else (request[name] as unknown[])[Number(index)] = value;
}
