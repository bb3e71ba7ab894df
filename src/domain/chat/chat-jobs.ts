import type { JobRecord, JobStore } from '../../adapters/job-store/index.js';
import { balanceMicros, type Ledger } from '../../adapters/ledger/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import type { Billing } from '../billing/billing.js';
import { microsToUsd } from '../billing/money.js';
import type { JobRunner, JobWork } from '../jobs/job-runner.js';
import { retryUntil } from '../jobs/retry-until.js';
import type { Principal } from '../keys/authenticator.js';
import type { ChainHooks } from '../routing/run-chain.js';
import type { ChatBody, ChatService, PreparedChat } from './chat-service.js';
import { chatUsage, completionBody } from './completion-body.js';

/** The poll payload's `data` (SPEC 2.8). */
export interface ChatJobView {
  job_id: string;
  status: JobRecord['status'];
  model: string;
  [field: string]: unknown;
}

export interface ChatJobSettings {
  retentionMs: number;
}

/** Nobody waits on a job's connection: only its deadline (in its chain hooks, CHAT_JOB_BUDGET_MS) ends it early. */
const NO_CLIENT = new AbortController().signal;

/** What a chat job runs on: only the process that kicked it off has it. */
interface LocalRun {
  prepared: PreparedChat;
  hooks: ChainHooks;
}

/**
 * Job-based chat for clients that cannot read SSE (SPEC 4.2): validated and reserved at kickoff, run in the
 * background, charged once when it completes whether or not anyone polls (SPEC 3.1), and replayed to every
 * poll until the record expires. A failed job costs nothing.
 *
 * A chat job runs where it was kicked off (its prepared call is not kept in the record): a job whose process
 * died is failed by the worker that claims it, its hold left to expire, nothing charged.
 */
export class ChatJobs implements JobWork {
  private readonly local = new Map<string, LocalRun>();

  constructor(
    private readonly chat: ChatService,
    private readonly jobs: JobStore,
    private readonly runner: JobRunner,
    private readonly billing: Billing,
    private readonly ledger: Ledger,
    private readonly now: () => number,
    private readonly settings: ChatJobSettings,
    private readonly onUnexpected: (err: unknown, jobId: string) => void,
  ) {
    runner.register('chat', this);
  }

  async start(principal: Principal, requestId: string, body: ChatBody, hooks: ChainHooks): Promise<ChatJobView> {
    const prepared = await this.chat.prepare(principal, requestId, { ...body, stream: false }, false);
    const nowMs = this.now();
    const job: JobRecord = {
      id: newId('job'),
      accountId: principal.accountId,
      kind: 'chat',
      status: 'pending',
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      expiresAtMs: nowMs + this.settings.retentionMs,
      data: { model: prepared.entry.slug, estimated_cost_usd: microsToUsd(prepared.call.reservation.amountMicros) },
    };
    this.local.set(job.id, { prepared, hooks });
    try {
      await orUnavailable(() => this.runner.launch(job), 'job store');
    } catch (err) {
      this.local.delete(job.id);
      await this.chat.release(prepared);
      throw err;
    }
    return view(job);
  }

  async get(principal: Principal, jobId: string): Promise<ChatJobView> {
    const job = await orUnavailable(() => this.jobs.get(jobId, this.now()), 'job store');
    // Another account's job is indistinguishable from none (SPEC 7.2 job_not_found).
    if (job === null || job.accountId !== principal.accountId || job.kind !== 'chat')
      throw new ApiError('job_not_found');
    return view(job);
  }

  async advance(job: JobRecord, lost: AbortSignal): Promise<void> {
    const local = this.local.get(job.id);
    this.local.delete(job.id);
    if (local === undefined) {
      await this.fail(
        job.id,
        new ApiError('internal_error', 'The gateway restarted while this job ran; nothing was charged. Start it again'),
        lost,
      );
      return;
    }
    await this.run(job.id, local.prepared, local.hooks, lost);
  }

  /**
   * Runs the job to its terminal state. Until the call is charged it may fail (nothing charged); once charged it
   * can only be recorded completed: a store write that fails then is retried, never turned into `failed`.
   */
  private async run(jobId: string, prepared: PreparedChat, hooks: ChainHooks, lost: AbortSignal): Promise<void> {
    let outcome: Awaited<ReturnType<ChatService['complete']>>;
    try {
      await this.jobs.transition(jobId, ['pending'], { status: 'processing' }, this.now());
      outcome = await this.chat.complete(prepared, NO_CLIENT, hooks);
    } catch (err) {
      await this.chat.release(prepared); // a no-op when the chain already released it
      await this.fail(jobId, err, lost);
      return;
    }
    const { completion, usage, charge } = outcome;
    // SPEC 2.8: the balance after this job's charge.
    const accountId = prepared.principal.accountId;
    const balance = await this.billing.read(accountId, () => this.ledger.getBalance(accountId)).catch(() => null);
    const data = {
      result: completionBody(completion, prepared.entry.slug, chatUsage(usage, charge, 'native')),
      cost_usd: microsToUsd(charge.costMicros),
      ...(balance === null ? {} : { balance_usd: microsToUsd(balanceMicros(balance)) }),
    };
    await this.record(jobId, { status: 'completed', data }, lost);
  }

  private async fail(jobId: string, err: unknown, lost: AbortSignal): Promise<void> {
    if (!(err instanceof ApiError)) this.onUnexpected(err, jobId);
    const error = err instanceof ApiError ? err : new ApiError('internal_error');
    await this.record(jobId, { status: 'failed', data: { error: error.message, error_code: error.code } }, lost);
  }

  /** Writes the job's outcome, retrying a failing store until the record's retention runs out. */
  private async record(
    jobId: string,
    patch: { status: 'completed' | 'failed'; data: Record<string, unknown> },
    lost: AbortSignal,
  ): Promise<void> {
    await retryUntil(
      this.now() + this.settings.retentionMs,
      this.now,
      lost,
      () => this.jobs.transition(jobId, ['pending', 'processing'], patch, this.now()),
      (err) => this.onUnexpected(err, jobId),
    );
  }
}

function view(job: JobRecord): ChatJobView {
  return { job_id: job.id, status: job.status, model: String(job.data.model), ...job.data };
}
