import type { Logger } from 'pino';
import type { BlobStore } from '../adapters/blob-store/index.js';
import { SqlChatStore } from '../adapters/chat-store/sql.js';
import { InProcessJobQueue } from '../adapters/job-queue/in-process.js';
import type { JobStore } from '../adapters/job-store/index.js';
import { SqlJobStore } from '../adapters/job-store/sql.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { MediaLoader } from '../adapters/media-fetch/index.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { Billing } from '../domain/billing/billing.js';
import type { ModelCatalog } from '../domain/catalog/model-catalog.js';
import { ChatJobs } from '../domain/chat/chat-jobs.js';
import type { ChatService } from '../domain/chat/chat-service.js';
import { ChatRooms } from '../domain/chat-rooms/chat-rooms.js';
import { ImageJobs } from '../domain/images/image-jobs.js';
import { JobRunner } from '../domain/jobs/job-runner.js';
import type { FileLinks } from '../domain/media/file-links.js';
import { MediaJobs } from '../domain/media/media-jobs.js';
import { MUSIC } from '../domain/media/music-plan.js';
import { IMAGE_RESTORATION, VIDEO_RESTORATION } from '../domain/media/restoration-plan.js';
import { SPEECH } from '../domain/media/speech-plan.js';
import { VideoJobs } from '../domain/media/video-jobs.js';
import type { RouteTable } from '../domain/routing/route-table.js';
import type { ChainHooks } from '../domain/routing/run-chain.js';

/** Most jobs of dead workers one process claims per scan: the rest wait for the next scan or another process. */
const JOB_CLAIM_BATCH = 16;

export interface JobParts {
  db: Database;
  config: Config;
  logger: Logger;
  now: () => number;
  catalog: ModelCatalog;
  routes: RouteTable;
  billing: Billing;
  ledger: Ledger;
  media: MediaLoader;
  blobs: BlobStore;
  fileLinks: FileLinks;
  chat: ChatService;
  chainHooks: (requestId: string, slug: string, deadlineMs?: number) => ChainHooks;
}

/** BullMQ on the shared Redis, imported only at scale: the embedded default never holds it. */
async function bullMqQueue(redisUrl: string, prefix: string, logger: Logger) {
  const { BullMqJobQueue } = await import('../adapters/job-queue/bullmq.js');
  return BullMqJobQueue.connect(redisUrl, prefix, (err) => logger.warn({ err }, 'job queue redis'));
}

/** The job store and runner; wake-ups in this process on the embedded default, BullMQ on the shared Redis at scale. */
async function buildRunner({ db, config, logger, now }: JobParts) {
  const jobs: JobStore = new SqlJobStore(db);
  const onJobError = (err: unknown, jobId: string) => logger.error({ err, jobId }, 'job failed unexpectedly');
  const jobQueue =
    config.REDIS_URL === undefined
      ? new InProcessJobQueue()
      : await bullMqQueue(config.REDIS_URL, config.JOB_QUEUE_PREFIX, logger);
  const jobRunner = new JobRunner(jobs, jobQueue, {
    leaseMs: config.JOB_LEASE_MS,
    claimBatch: JOB_CLAIM_BATCH,
    now,
    onUnexpected: onJobError,
  });
  return { jobs, jobRunner, onJobError };
}

/** Async jobs (SPEC 3.1): chat, image, speech, music, video and restoration jobs, and chat rooms built on them. */
export async function buildJobs(parts: JobParts) {
  const { db, config, now, catalog, routes, billing, ledger, media, blobs, fileLinks, chat, chainHooks } = parts;
  const { jobs, jobRunner, onJobError } = await buildRunner(parts);
  const chatJobs = new ChatJobs(
    chat,
    jobs,
    jobRunner,
    billing,
    ledger,
    now,
    { retentionMs: config.CHAT_JOB_RETENTION_MS },
    onJobError,
  );
  const jobDeps = {
    catalog,
    routes,
    billing,
    ledger,
    now,
    media,
    blobs,
    fileLinks,
    jobs,
    runner: jobRunner,
    owner: jobRunner.owner,
    onUnexpected: onJobError,
  };
  const imageJobs = new ImageJobs({ ...jobDeps, chainHooks, budgetMs: config.IMAGE_JOB_BUDGET_MS });
  const mediaJobDeps = {
    ...jobDeps,
    settings: { budgetMs: config.MEDIA_JOB_BUDGET_MS, pollMs: config.MEDIA_POLL_MS, stallMs: config.MEDIA_STALL_MS },
  };
  return {
    jobs,
    jobRunner,
    chatJobs,
    imageJobs,
    audioJobs: new MediaJobs(SPEECH, mediaJobDeps),
    musicJobs: new MediaJobs(MUSIC, mediaJobDeps),
    videoJobs: new VideoJobs(mediaJobDeps),
    topazImageJobs: new MediaJobs(IMAGE_RESTORATION, mediaJobDeps),
    topazVideoJobs: new MediaJobs(VIDEO_RESTORATION, mediaJobDeps),
    chatRooms: new ChatRooms({ store: new SqlChatStore(db), catalog, chat, imageJobs, now }),
  };
}
