import type { components } from '../../../generated/openapi.js';
import type { JobRecord } from '../../adapters/job-store/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { microsToUsd } from '../billing/money.js';
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
import { retryUntil } from '../jobs/retry-until.js';
import type { Principal } from '../keys/authenticator.js';
import { IMAGE_RETENTION_MS } from '../limits.js';
import type { ChainHooks } from '../routing/run-chain.js';
import {
  type Delivery,
  type ImageGenerationDeps,
  imageCallDetails,
  imageUsage,
  renderImages,
} from './image-generation.js';
import { planCost, planImage } from './image-plan.js';
import { type HostedReference, hostReferences } from './references.js';

type ImageRequest = components['schemas']['ImageRequest'];
type ImageJobView = components['schemas']['ImageJob'];
type HostedImageView = components['schemas']['HostedImage'];

export interface ImageJobDeps extends ImageGenerationDeps, JobStepDeps {
  runner: JobRunner;
  /** The chain hooks of a job: its slug, id and deadline. */
  chainHooks: (requestId: string, slug: string, deadlineMs: number) => ChainHooks;
  /** A job's render budget from kickoff (SPEC 7.5: delivery can take about 7 minutes). */
  budgetMs: number;
}

/** What an image job's record keeps (JSON): enough for any process to resume it after this one died. */
interface ImageJobData extends HeldMoney, JobShown {
  /** The request, its references replaced by the links of their hosted copies. */
  request: ImageRequest;
  references: Omit<HostedReference, 'bytes'>[];
  /** Checkpoint: the images are hosted (a resumed job charges them, never renders again). */
  delivery?: Omit<Delivery, 'images'> & { images: (Omit<HostedImageView, 'b64_json'> & { name: string })[] };
  /** The terminal answer. */
  usage?: ImageJobView['usage'];
  cost_usd?: number;
  balance_usd?: number;
  /** The poll that first delivered the completed job has been answered (with the bytes). */
  delivered?: boolean;
}

const KIND = 'image';

/**
 * Image jobs (SPEC 3.1, 4.4): the request checked, planned, held and its references hosted at kickoff, then
 * rendered in the background by the job runner; the images delivered are charged once, when the render finishes,
 * whether or not anyone polls, and a failed job costs nothing. Every step is recorded in the job's row, so a job
 * whose process died is resumed by another: from the start if nothing was hosted yet (nothing was delivered, so
 * nothing charged), from the charge if the images were.
 */
export class ImageJobs implements JobWork {
  constructor(private readonly deps: ImageJobDeps) {
    deps.runner.register(KIND, this);
  }

  async start(principal: Principal, request: ImageRequest): Promise<ImageJobView> {
    const { deps } = this;
    const plan = planImage(deps.catalog, request);
    deps.routes.chain(plan.entry.slug, 'image'); // SPEC 7.2: nothing routes it → refused before anything starts
    const id = newId('job');
    const reservation = await deps.billing.reserve(principal, id, planCost(plan, plan.n, principal.account), {
      durable: true,
    });
    const nowMs = deps.now();
    const job: JobRecord = {
      id,
      accountId: principal.accountId,
      kind: KIND,
      status: 'pending',
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + IMAGE_RETENTION_MS,
      data: {},
    };
    try {
      const references = await hostReferences(deps, id, request.input_images ?? [], job.expiresAtMs);
      const data: ImageJobData = {
        model: plan.entry.slug,
        estimated_cost_usd: microsToUsd(reservation.amountMicros),
        request: { ...request, ...(references.length === 0 ? {} : { input_images: references.map((r) => r.url) }) },
        references: references.map(({ name, mimeType, url }) => ({ name, mimeType, url })),
        ...heldMoney(reservation),
      };
      job.data = data as unknown as Record<string, unknown>;
      await orUnavailable(() => deps.runner.create(job), 'job store');
    } catch (err) {
      await deps.billing.release(reservation);
      throw err;
    }
    // The job exists and its money is held: from here the kickoff succeeds; a queue that cannot be reached leaves
    // the job to the lease scan.
    await deps.runner.dispatch(job.id).catch((err: unknown) => deps.onUnexpected(err, job.id));
    return view(job);
  }

  async get(principal: Principal, jobId: string): Promise<ImageJobView> {
    const { deps } = this;
    const job = await ownedJob(deps, principal, jobId, KIND);
    const data = job.data as unknown as ImageJobData;
    if (job.status !== 'completed' || data.delivered === true || data.request.response_format === 'url')
      return view(job);
    // SPEC 2.8: the poll that first delivers carries the bytes; whoever marks the job delivered is that poll.
    const first = await orUnavailable(
      () => deps.jobs.transition(jobId, ['completed'], { data: { delivered: true } }, deps.now()),
      'job store',
    );
    if (first === null) return view(job);
    const answer = view(first);
    answer.images = await Promise.all(
      (answer.images ?? []).map(async (image, i) => {
        const stored = await deps.blobs.get(data.delivery?.images[i]?.name ?? '', deps.now());
        return stored === null ? image : { ...image, b64_json: stored.bytes.toString('base64') };
      }),
    );
    return answer;
  }

  /** Renders (unless a previous worker hosted the images already), charges, and records the answer. */
  async advance(job: JobRecord, lost: AbortSignal): Promise<void> {
    const { deps } = this;
    const data = job.data as unknown as ImageJobData;
    const reservation = reservationOf(job.id, data);
    let plan: ReturnType<typeof planImage>;
    let delivery = data.delivery;
    if (delivery === undefined) {
      const stopKeepingAlive = deps.billing.keepAlive(reservation);
      try {
        plan = planImage(deps.catalog, data.request);
        await deps.jobs.transition(job.id, ['pending'], { status: 'processing' }, deps.now(), deps.owner);
        const rendered = await renderImages(
          deps,
          plan,
          deps.routes.chain(plan.entry.slug, 'image'),
          data.request,
          await this.references(data),
          job.id,
          lost,
          this.hooks(job, plan.entry.slug),
        );
        delivery = {
          provider: rendered.provider,
          format: rendered.format,
          images: rendered.images.map(({ name, url, mimeType }) => ({ name, url, mime_type: mimeType })),
        };
      } catch (err) {
        if (!lost.aborted) await failReleased(deps, job, reservation, err, deps.budgetMs, lost);
        return;
      } finally {
        stopKeepingAlive();
      }
      if (lost.aborted) return; // another worker owns the job now; it renders, charges and answers
      const checkpoint = delivery;
      let kept = false;
      await retryUntil(
        job.expiresAtMs,
        deps.now,
        lost,
        async () => {
          kept =
            (await deps.jobs.transition(
              job.id,
              ['processing'],
              { data: { delivery: checkpoint } },
              deps.now(),
              deps.owner,
            )) !== null;
        },
        (err) => deps.onUnexpected(err, job.id),
      );
      if (!kept) return; // the lease went to another worker, which renders (nothing delivered was charged)
    } else {
      plan = planImage(deps.catalog, data.request);
    }
    const delivered = delivery;
    const cost = {
      micros: planCost(plan, delivered.images.length, data.owner.account),
      details: imageCallDetails(plan, delivered),
    };
    await completeCharged(
      deps,
      job,
      reservation,
      cost,
      (charged) => ({ delivery: delivered, usage: imageUsage(plan, delivered, charged) }),
      lost,
    );
  }

  /** The references as dispatched: hosted at kickoff, read back from the blob store (by any process). */
  private async references(data: ImageJobData): Promise<HostedReference[]> {
    return Promise.all(
      data.references.map(async (reference) => {
        const stored = await this.deps.blobs.get(reference.name, this.deps.now());
        if (stored === null)
          throw new ApiError('upstream_validation_error', `${reference.url}: the hosted reference expired`);
        return { ...reference, bytes: stored.bytes };
      }),
    );
  }

  private hooks(job: JobRecord, slug: string): ChainHooks {
    const deadlineAtMs = job.createdAtMs + this.deps.budgetMs;
    return this.deps.chainHooks(job.id, slug, Math.max(0, deadlineAtMs - this.deps.now()));
  }
}

/** The poll payload (SPEC 2.8) from the record. */
function view(job: JobRecord): ImageJobView {
  const data = job.data as unknown as ImageJobData;
  const answer: ImageJobView = jobHead(job, data);
  if (job.status !== 'completed' || data.delivery === undefined || data.cost_usd === undefined) return answer;
  return {
    ...answer,
    cost_usd: data.cost_usd,
    ...(data.balance_usd === undefined ? {} : { balance_usd: data.balance_usd }),
    images: data.delivery.images.map(({ url, mime_type }) => ({ url, mime_type })),
    ...(data.usage === undefined ? {} : { usage: data.usage }),
  };
}
