import { setTimeout as sleep } from 'node:timers/promises';
import type { components } from '../../../generated/openapi.js';
import type { JobRecord } from '../../adapters/job-store/index.js';
import { ApiError, invalidField, orUnavailable } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { microsToUsd } from '../billing/money.js';
import type { Principal } from '../keys/authenticator.js';
import { DRAFT_FINAL_WINDOW_MS } from '../limits.js';
import { NO_DISCOUNTS } from '../pricing/index.js';
import { type MediaJobDeps, MediaJobs } from './media-jobs.js';
import { FINAL_RESOLUTION, VIDEO } from './video-plan.js';

type VideoRequest = components['schemas']['VideoRequest'];
type MediaJobView = components['schemas']['MediaJob'];

const DRAFT_KIND = 'video_draft';
const draftRecordId = (jobId: string) => `${jobId}.draft`;
/**
 * A final claimed this long ago whose job does not exist: its kickoff died before creating it (its claim is void).
 * Before its job exists a kickoff does only local steps (the plan, reading the draft's hosted inputs, the hold).
 */
const CLAIM_STALE_MS = 30_000;
/** How often a second call looks for the first final while that one is still being kicked off. */
const CLAIM_POLL_MS = 100;

/**
 * Video jobs (SPEC 2.12, 3.1, 3.2): the media job engine with the video rules, plus what only video has: the poll's
 * `video` block, and the draft-capable SKU's drafts. A 480p draft keeps a record of its own for 7 days (kind
 * `video_draft`, terminal, so never worked on) with its request, its inputs hosted as long; its completion makes it
 * finalisable, and `final` renders the same request at 1080p as a new job, billed separately, after the draft's own
 * record (2 hours) has gone too. A draft has one final: its record names it, set by a compare-and-set.
 */
export class VideoJobs {
  private readonly media: MediaJobs<VideoRequest>;

  constructor(private readonly deps: MediaJobDeps) {
    this.media = new MediaJobs(VIDEO, deps, { onCompleted: (job) => this.completed(job) });
  }

  estimate(principal: Principal, request: VideoRequest) {
    return this.media.estimate(principal, request);
  }

  async start(principal: Principal, request: VideoRequest): Promise<MediaJobView> {
    const draft = this.media.plan(principal, request).inputs.draft === true;
    const { view, job } = await this.media.start(
      principal,
      request,
      draft ? { draft: this.offer(principal, request) } : undefined,
    );
    if (draft && job.status !== 'failed') {
      const record: JobRecord = {
        id: draftRecordId(job.id),
        accountId: principal.accountId,
        kind: DRAFT_KIND,
        status: 'completed',
        createdAtMs: job.createdAtMs,
        updatedAtMs: job.createdAtMs,
        expiresAtMs: job.createdAtMs + DRAFT_FINAL_WINDOW_MS,
        data: { request: job.data.request, ready: false },
      };
      // The draft renders and is charged either way: a record that cannot be written costs its final, not the kickoff.
      await this.deps.jobs.create(record).catch((err: unknown) => this.deps.onUnexpected(err, job.id));
    }
    return decorate(view);
  }

  async get(principal: Principal, jobId: string): Promise<MediaJobView> {
    return decorate((await this.media.get(principal, jobId)).view);
  }

  /**
   * SPEC 3.2: the 1080p final of a completed draft younger than 7 days, as a new job; `created` false when this
   * call found the draft's final already made (a draft has one final: a second call answers the first).
   */
  async final(principal: Principal, draftJobId: string): Promise<{ view: MediaJobView; created: boolean }> {
    for (;;) {
      const record = await this.finalisable(principal, draftJobId);
      const claim = record.data.final_job_id;
      const answer =
        typeof claim === 'string'
          ? await this.firstFinal(principal, record, claim)
          : await this.claimFinal(principal, record, null);
      if (answer !== null) return answer;
    }
  }

  private async finalisable(principal: Principal, draftJobId: string): Promise<JobRecord> {
    const record = await orUnavailable(
      () => this.deps.jobs.get(draftRecordId(draftJobId), this.deps.now()),
      'job store',
    );
    if (record === null || record.accountId !== principal.accountId || record.kind !== DRAFT_KIND)
      throw new ApiError('job_not_found');
    if (record.data.ready !== true)
      throw invalidField(['path', 'job_id'], 'the draft has not completed: a final is made from a completed draft');
    return record;
  }

  /**
   * The draft's final as it stands. A failed one (nothing charged) or one whose kickoff died before creating it
   * (claimed CLAIM_STALE_MS ago) is made again; one still being kicked off is waited for. Null: look again.
   */
  private async firstFinal(
    principal: Principal,
    record: JobRecord,
    claim: string,
  ): Promise<{ view: MediaJobView; created: boolean } | null> {
    const found = await this.media.get(principal, claim).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'job_not_found') return null;
      throw err;
    });
    if (found !== null && found.job.status !== 'failed') return { view: decorate(found.view), created: false };
    if (found === null && record.data.final_started === true)
      throw new ApiError('job_not_found', `This draft's final (${claim}) was made and its record has expired`);
    if (found === null && this.deps.now() - Number(record.data.final_claimed_at_ms) < CLAIM_STALE_MS) {
      await sleep(CLAIM_POLL_MS);
      return null;
    }
    return this.claimFinal(principal, record, claim);
  }

  /**
   * Claims the draft's final with a compare-and-set on the draft's record (it names the final it replaces, or
   * none), so across processes one caller makes it; then kicks it off. Null when another caller claimed it first.
   */
  private async claimFinal(
    principal: Principal,
    record: JobRecord,
    replaced: string | null,
  ): Promise<{ view: MediaJobView; created: boolean } | null> {
    const id = newId('job');
    const mark = (data: Record<string, unknown>, expected: string) =>
      this.deps.jobs.transition(
        record.id,
        ['completed'],
        { data, expect: { final_job_id: expected } },
        this.deps.now(),
      );
    const claimed = await orUnavailable(
      () =>
        this.deps.jobs.transition(
          record.id,
          ['completed'],
          {
            data: { final_job_id: id, final_claimed_at_ms: this.deps.now(), final_started: false },
            expect: { final_job_id: replaced },
          },
          this.deps.now(),
        ),
      'job store',
    );
    if (claimed === null) return null;
    try {
      const { view } = await this.media.start(principal, finalOf(record.data.request as VideoRequest), undefined, id);
      // Started: once its record expires the draft's final is spent, not made again.
      await mark({ final_started: true }, id).catch((err: unknown) => this.deps.onUnexpected(err, id));
      return { view: decorate(view), created: true };
    } catch (err) {
      // Not started (402, no route, ...): the draft can be finalised again.
      await mark({ final_job_id: null }, id).catch((markErr: unknown) => this.deps.onUnexpected(markErr, id));
      throw err;
    }
  }

  /** The engine's completion hook: a completed draft becomes finalisable. */
  private async completed(job: JobRecord): Promise<void> {
    if (job.kind !== 'video' || (job.data.inputs as Record<string, unknown> | undefined)?.draft !== true) return;
    await this.deps.jobs.transition(draftRecordId(job.id), ['completed'], { data: { ready: true } }, this.deps.now());
  }

  /** What the final of a draft will cost (SPEC 3.2: the draft block carries it), at list and at the caller's price. */
  private offer(principal: Principal, request: VideoRequest) {
    const final = finalOf(request);
    return {
      final_cost_usd: microsToUsd(
        this.media.plan({ ...principal, account: { ...principal.account, ...NO_DISCOUNTS } }, final).holdMicros,
      ),
      final_discounted_cost_usd: microsToUsd(this.media.plan(principal, final).holdMicros),
      final_until: Math.floor((this.deps.now() + DRAFT_FINAL_WINDOW_MS) / 1000),
    };
  }
}

/** The final's request: the draft's at 1080p, without what the SKU refuses at 1080p (SPEC 2.12). */
function finalOf(request: VideoRequest): VideoRequest {
  const { last_frame_url: _lastFrame, video_task: _task, ...same } = request;
  return { ...same, resolution: FINAL_RESOLUTION };
}

/** SPEC 2.8: a completed clip's `video` block (hosted by us, so stored and ready), and the draft's final path. */
function decorate(view: MediaJobView): MediaJobView {
  const clip = view.outputs?.[0];
  return {
    ...view,
    ...(clip === undefined ? {} : { video: { url: clip.url, stored_url: clip.url, stored_ready: true } }),
    ...(view.draft === undefined
      ? {}
      : { draft: { ...view.draft, final_path: `/v1/llm/videos/jobs/${view.job_id}/final` } }),
  };
}
