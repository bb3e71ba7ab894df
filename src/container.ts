import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createClient } from 'redis';
import { parse as parseYaml } from 'yaml';
import type { components } from '../generated/openapi.js';
import type { AlertStore } from './adapters/alert-store/index.js';
import { SqlAlertStore } from './adapters/alert-store/sql.js';
import type { ApiKeyStore } from './adapters/api-keys/index.js';
import { SqlApiKeyStore } from './adapters/api-keys/sql.js';
import { type BlobStore, FileBlobStore, S3BlobStore } from './adapters/blob-store/index.js';
import { FileChargeJournal } from './adapters/charge-journal/file.js';
import { SqlChatStore } from './adapters/chat-store/sql.js';
import { SqlIdempotencyStore } from './adapters/idempotency/sql.js';
import { type ImageRegistry, OciImageRegistry } from './adapters/image-registry/index.js';
import { BullMqJobQueue } from './adapters/job-queue/bullmq.js';
import { InProcessJobQueue } from './adapters/job-queue/in-process.js';
import type { JobStore } from './adapters/job-store/index.js';
import { SqlJobStore } from './adapters/job-store/sql.js';
import type { Ledger } from './adapters/ledger/index.js';
import { openLedger } from './adapters/ledger/open.js';
import type { MarketStore } from './adapters/market-store/index.js';
import { SqlMarketStore } from './adapters/market-store/sql.js';
import { AddressPolicy } from './adapters/media-fetch/address-policy.js';
import { type MediaLoader, SafeMediaLoader } from './adapters/media-fetch/index.js';
import { LogNotifier, MessengerBotNotifier } from './adapters/notifier/index.js';
import { FailOpenRateLimiter } from './adapters/rate-limiter/fail-open.js';
import type { RateLimiter } from './adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from './adapters/rate-limiter/memory.js';
import { RedisRateLimiter } from './adapters/rate-limiter/redis.js';
import { SqlSshKeyStore } from './adapters/ssh-key-store/sql.js';
import { PortListeners, TunnelListener } from './adapters/ssh-proxy/tcp-listeners.js';
import { TunnelJoiner } from './adapters/ssh-proxy/tunnel-joiner.js';
import { WorkerPoolTokenWork } from './adapters/tokenizer/index.js';
import { SqlTunnelStore } from './adapters/tunnel-store/sql.js';
import type { UsageLogStore } from './adapters/usage-log/index.js';
import { SqlUsageLogStore } from './adapters/usage-log/sql.js';
import { ClipEncoder } from './adapters/video-codec/index.js';
import { loadCatalogFile, loadUpstreamsFile } from './composition/config-files.js';
import type { Config } from './config.js';
import { connectDatabase, type Database } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { startCheckpointer } from './db/sqlite-checkpointer.js';
import { Billing } from './domain/billing/billing.js';
import { retryJournaledCharges } from './domain/billing/charge-retrier.js';
import { Idempotency } from './domain/billing/idempotency.js';
import { fxRateToMicro, usdToMicros } from './domain/billing/money.js';
import { createLossAlert, ledgerBatchObserver } from './domain/billing/money-signals.js';
import { ModelCatalog } from './domain/catalog/model-catalog.js';
import { ThroughputTracker } from './domain/catalog/throughput.js';
import { ChatJobs } from './domain/chat/chat-jobs.js';
import { ChatService } from './domain/chat/chat-service.js';
import { ChatRooms } from './domain/chat-rooms/chat-rooms.js';
import { ImageJobs } from './domain/images/image-jobs.js';
import { JobRunner } from './domain/jobs/job-runner.js';
import { AuthFailures } from './domain/keys/auth-failures.js';
import { Authenticator } from './domain/keys/authenticator.js';
import { KeyUsageRecorder } from './domain/keys/key-usage-recorder.js';
import { BurstOrders } from './domain/market/burst-orders.js';
import { Machines } from './domain/market/machines.js';
import { Recommendations } from './domain/market/recommendation.js';
import { RentalAlerts } from './domain/market/rental-alerts.js';
import type { Rentals } from './domain/market/rentals.js';
import { SshKeys } from './domain/market/ssh-keys.js';
import { SshProxy } from './domain/market/ssh-proxy.js';
import type { Volumes } from './domain/market/volumes.js';
import { FileLinks } from './domain/media/file-links.js';
import { MediaJobs } from './domain/media/media-jobs.js';
import { MUSIC } from './domain/media/music-plan.js';
import { IMAGE_RESTORATION, VIDEO_RESTORATION } from './domain/media/restoration-plan.js';
import { SPEECH } from './domain/media/speech-plan.js';
import { VideoJobs } from './domain/media/video-jobs.js';
import { createChainAlert } from './domain/routing/alerts.js';
import { buildProviders } from './domain/routing/providers.js';
import { RouteTable } from './domain/routing/route-table.js';
import type { ChainHooks } from './domain/routing/run-chain.js';
import { sandboxUses } from './domain/routing/upstreams-file.js';
import { TokenCounter } from './domain/text/token-counter.js';
import { UsageReader } from './domain/usage/usage-reader.js';
import { counter } from './lib/metrics.js';
import { Periodic } from './lib/periodic.js';
import { PROJECT_ROOT } from './lib/project-root.js';
import { buildRentalBilling } from './rental-billing.js';
import { blameSetting, redactedUrl, StartupError } from './runtime/startup.js';

export const CONTRACT_FILE = `${PROJECT_ROOT}generated/openapi.bundled.yaml`;

/** The contract's IdempotencyKey parameter promises replay of responses up to this size. */
const IDEMPOTENT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** How often billing leases are renewed and idle ones given back (well inside BILLING_LEASE_TTL_MS / 4). */
const LEASE_TICK_MS = 1_000;
/** Most jobs of dead workers one process claims per scan: the rest wait for the next scan or another process. */
const JOB_CLAIM_BATCH = 16;
/** A direct-download link needs none or a few; sign-in and share pages chain more (SPEC 7.4 says: send a direct link). */
const MEDIA_FETCH_MAX_REDIRECTS = 5;

/** Everything a handler may use; built once in the composition root below. */
export interface Deps {
  config: Config;
  logger: Logger;
  now: () => number;
  contract: OpenAPIV3.DocumentV3_1;
  db: Database;
  apiKeys: ApiKeyStore;
  authenticator: Authenticator;
  keyUsage: KeyUsageRecorder;
  catalog: ModelCatalog;
  ledger: Ledger;
  billing: Billing;
  /** Idempotency-Key on paid POSTs: claims, kept responses, conflicts. */
  idempotency: Idempotency;
  usageLog: UsageLogStore;
  /** Reads for the usage endpoints (503 when unreachable). */
  usage: UsageReader;
  rateLimiter: RateLimiter;
  routes: RouteTable;
  chat: ChatService;
  /** Token counting on the request path (long text on worker threads). */
  tokens: TokenCounter;
  /** Files the service hosts, and the signed links to them. */
  blobs: BlobStore;
  fileLinks: FileLinks;
  /** Reference media named by clients, loaded SSRF-safely. */
  media: MediaLoader;
  /** Records of async jobs (SPEC 3.1), polled by any process. */
  jobs: JobStore;
  chatJobs: ChatJobs;
  imageJobs: ImageJobs;
  audioJobs: MediaJobs<components['schemas']['SpeechRequest']>;
  musicJobs: MediaJobs<components['schemas']['MusicRequest']>;
  videoJobs: VideoJobs;
  topazImageJobs: MediaJobs<components['schemas']['TopazImageRequest']>;
  topazVideoJobs: MediaJobs<components['schemas']['TopazVideoRequest']>;
  chatRooms: ChatRooms;
  /** GPU recommendations (SPEC 2.13): live offers, written by RECOMMENDATION_MODEL when set. */
  recommendations: Recommendations;
  /** The GPU marketplace: machines and their listings, offers, rentals and their billing. */
  market: Market;
  /** Accounts' alert targets (the linked messenger chat) and how far rental status alerts were delivered (SPEC 6.3). */
  alerts: AlertStore;
  /** Works on this process's jobs and resumes those of processes that died. */
  jobRunner: JobRunner;
  throughput: ThroughputTracker;
  metrics: Registry;
  /** The chain hooks of one request: its deadline (REQUEST_DEADLINE_MS unless given), the operator alert (SPEC 7.3). */
  chainHooks(requestId: string, slug: string, deadlineMs?: number): ChainHooks;
  /** Today's RUB per USD × 1e6 (SPEC 2.6 `market` pricing). */
  marketFxRateRubMicro: bigint;
  close(): Promise<void>;
}

/** The embedded default keeps files in a directory; BLOB_STORE=s3 puts them in a bucket (DESIGN: one port, two stores). */
function buildBlobStore(config: Config): BlobStore {
  if (config.BLOB_STORE === 'file' || config.S3_BUCKET === undefined) return new FileBlobStore(config.BLOB_DIR); // loadConfig requires the bucket with s3
  const credentials =
    config.S3_ACCESS_KEY_ID !== undefined && config.S3_SECRET_ACCESS_KEY !== undefined
      ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
      : undefined;
  return new S3BlobStore({
    bucket: config.S3_BUCKET,
    prefix: config.S3_PREFIX,
    region: config.S3_REGION,
    ...(config.S3_ENDPOINT === undefined ? {} : { endpoint: config.S3_ENDPOINT }),
    ...(credentials === undefined ? {} : { credentials }),
  });
}

/** Where clients reach the service (file links name it); unset, this process's own address, said in production. */
function publicBaseUrl(config: Config, logger: Logger): string {
  if (config.PUBLIC_BASE_URL !== undefined) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  if (config.NODE_ENV === 'production')
    logger.warn("PUBLIC_BASE_URL is not set: file links name this process's own address");
  return `http://${config.HOST}:${config.PORT}`;
}

/**
 * FILE_LINK_SECRET signs file links; every process behind one address needs the same one. Unset, a process makes
 * its own, and its links stop working when it stops (fine for `make run`; said in a warning in production).
 */
function fileLinkSecret(config: Config, logger: Logger): Buffer {
  if (config.FILE_LINK_SECRET !== undefined) return Buffer.from(config.FILE_LINK_SECRET);
  if (config.NODE_ENV === 'production')
    logger.warn('FILE_LINK_SECRET is not set: file links are signed with a key of this process only');
  return randomBytes(32);
}

/**
 * The database of DATABASE_URL, shown reachable: a SQLite path that cannot be a file (its parent is one) or a
 * PostgreSQL that does not answer stops the start naming the setting, not a migration's stack.
 */
async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  const shown = redactedUrl(config.DATABASE_URL);
  const db = await blameSetting('DATABASE_URL', shown, () =>
    connectDatabase(config.DATABASE_URL, {
      log: {
        warn: (m) => logger.warn({ detail: m }, 'database'),
        error: (m) => logger.error({ detail: m }, 'database'),
      },
      sqliteSynchronous: config.SQLITE_SYNCHRONOUS,
    }),
  );
  try {
    await blameSetting('DATABASE_URL', shown, () => db.knex.raw('select 1'));
  } catch (err) {
    await db.knex.destroy();
    throw err;
  }
  return db;
}

/** Reads the bundled contract (the source of truth the validator and the catalog checks use). */
export function loadContract(): OpenAPIV3.DocumentV3_1 {
  return parseYaml(readFileSync(CONTRACT_FILE, 'utf8')) as OpenAPIV3.DocumentV3_1;
}

/**
 * REDIS_URL set: one sliding window shared by every gateway process, answered locally while Redis is down
 * (fail open, logged). Unset: the in-process limiter of the embedded default.
 */
async function connectRedis(config: Config, logger: Logger) {
  if (config.REDIS_URL === undefined) return null;
  const client = createClient({
    url: config.REDIS_URL,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
  client.on('error', (err) => logger.debug({ err }, 'redis'));
  await client
    .connect()
    .catch((err: unknown) => logger.warn({ err }, 'redis unreachable at start; limiting locally until it answers'));
  return client;
}

type Redis = NonNullable<Awaited<ReturnType<typeof connectRedis>>>;

function buildRateLimiter(redis: Redis | null, config: Config, logger: Logger): RateLimiter {
  const local = new MemoryRateLimiter();
  if (redis === null) return local;
  return new FailOpenRateLimiter({
    primary: new RedisRateLimiter(redis),
    fallback: local,
    logger,
    isPrimaryReady: () => redis.isReady,
    timeoutMs: config.RATE_LIMIT_REDIS_TIMEOUT_MS,
  });
}

/** The composition root: adapters are chosen by configuration here, nowhere else (DESIGN.md 1). */
export interface Market {
  store: MarketStore;
  machines: Machines;
  rentals: Rentals;
  volumes: Volumes;
  bursts: BurstOrders;
  sshProxy: SshProxy;
  /** Docker image sizes from their registries (burst orders' image check). */
  registry: ImageRegistry;
  sshKeys: SshKeys;
}

function buildMarket(
  db: Database,
  ledger: Ledger,
  now: () => number,
  config: Config,
  marketFxRateRubMicro: bigint,
  onUnexpected: (err: unknown) => void,
): Market {
  const store = new SqlMarketStore(db);
  const { rentals, volumes } = buildRentalBilling(store, ledger, now, config, marketFxRateRubMicro, onUnexpected);
  const bursts = new BurstOrders({ store, rentals, volumes, ledger, now, offlineAfterMs: config.MACHINE_OFFLINE_MS });
  const sshProxy = new SshProxy({
    tunnels: new SqlTunnelStore(db),
    store,
    now,
    settings: {
      publicHost: config.SSH_PROXY_HOST,
      range: config.SSH_PROXY_PORTS,
      tunnelHost: config.TUNNEL_HOST ?? config.SSH_PROXY_HOST,
      tunnelPort: config.TUNNEL_PORT,
      connectTimeoutMs: SSH_CONNECT_TIMEOUT_MS,
    },
    onUnexpected,
  });
  // A Docker image name is user input: its registry, and the token service it names, get the media links' rules.
  const registry = new OciImageRegistry({ policy: AddressPolicy.parse(config.MEDIA_FETCH_ALLOW) });
  const sshKeys = new SshKeys(new SqlSshKeyStore(db), now);
  return {
    store,
    machines: new Machines(store, rentals, sshKeys, now, {
      maxUnverifiedListed: config.MARKET_MAX_UNVERIFIED_LISTED,
      priceRiseNoticeMs: config.MARKET_PRICE_RISE_NOTICE_MS,
    }),
    rentals,
    volumes,
    bursts,
    sshProxy,
    registry,
    sshKeys,
  };
}

const SSH_CONNECT_TIMEOUT_MS = 15_000;
const SSH_PROXY_SYNC_MS = 2_000;
/** Reliability moves by the minute over a 30-day window: every few minutes is plenty. */
const RELIABILITY_REFRESH_MS = 5 * 60_000;

/**
 * The SSH proxy's sockets in this process: the tunnel port agents dial back to, then a listener per rental port.
 * A process that cannot take the tunnel port (another gateway process on this host holds it) serves no sockets and
 * leaves the proxy to that one; it still allocates ports and answers agents through the database.
 */
async function openSshSockets(
  config: Config,
  proxy: SshProxy,
  logger: Logger,
): Promise<{ close(): Promise<void> } | null> {
  if (config.SSH_PROXY === 'off') return null;
  const joiner = new TunnelJoiner(proxy, proxy.settings.connectTimeoutMs);
  const tunnels = new TunnelListener((token, socket, rest) => joiner.tunnelArrived(token, socket, rest));
  try {
    proxy.settings.tunnelPort = await tunnels.listen(config.TUNNEL_PORT, config.SSH_PROXY_BIND);
  } catch (err) {
    logger.warn(
      { reason: (err as NodeJS.ErrnoException).code ?? String(err), tunnel_port: config.TUNNEL_PORT },
      'SSH tunnel port taken: this process serves no SSH proxy sockets',
    );
    return null;
  }
  const ports = new PortListeners(
    config.SSH_PROXY_BIND,
    (port, socket) =>
      void joiner
        .clientConnected(port, socket)
        .catch((err: unknown) => logger.warn({ err, ssh_port: port }, 'SSH proxy connection failed')),
    (port, err) => logger.warn({ err, ssh_port: port }, 'SSH proxy port taken'),
  );
  proxy.attach(ports);
  return {
    async close() {
      joiner.close();
      await ports.closeAll();
      await tunnels.close();
    },
  };
}

export async function buildDeps(config: Config, logger: Logger, now: () => number = Date.now): Promise<Deps> {
  const marketFxRateRubMicro = fxRateToMicro(config.MARKET_FX_RATE_RUB);
  const contract = loadContract();
  // Configuration mistakes stop the start before anything is opened, each naming its setting (StartupError).
  const catalog = new ModelCatalog(
    await blameSetting('CATALOG_FILE', config.CATALOG_FILE, () =>
      loadCatalogFile(config.CATALOG_FILE, contract.components?.schemas ?? {}),
    ),
  );
  const upstreams = await blameSetting('UPSTREAMS_FILE', config.UPSTREAMS_FILE, () =>
    loadUpstreamsFile(config.UPSTREAMS_FILE),
  );
  const sandboxed = sandboxUses(upstreams);
  if (config.NODE_ENV === 'production' && config.SANDBOX_IN_PRODUCTION !== 'allow' && sandboxed.length > 0) {
    throw new StartupError(
      'UPSTREAMS_FILE',
      `${config.UPSTREAMS_FILE}: ${sandboxed.join(', ')}: the sandbox would answer real callers at real prices in production; route to real upstreams, or set SANDBOX_IN_PRODUCTION=allow`,
    );
  }
  const db = await openDatabase(config, logger);
  await migrateToLatest(db);
  const checkpointer = db.file
    ? startCheckpointer(db.file, config.SQLITE_CHECKPOINT_MS, (failure) =>
        logger.warn({ failure }, 'WAL checkpoint failed'),
      )
    : null;
  const apiKeys = new SqlApiKeyStore(db);
  const keyUsage = new KeyUsageRecorder(apiKeys, (err) => logger.warn({ err }, 'could not record key use'));
  keyUsage.start(config.KEY_USAGE_FLUSH_MS);
  const failures = new AuthFailures({
    limit: config.AUTH_FAILURES_PER_MINUTE,
    windowMs: 60_000,
    maxAddresses: 100_000,
    now,
  });
  const authenticator = new Authenticator(apiKeys, keyUsage, {
    cacheTtlMs: config.API_KEY_CACHE_TTL_MS,
    now,
    failures,
  });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const ledger = openLedger(db, { onBatch: ledgerBatchObserver(metrics) });
  const usageLog = new SqlUsageLogStore(db);
  const journal = new FileChargeJournal(config.CHARGE_JOURNAL_DIR);
  const leases = {
    maxMicros: usdToMicros(config.BILLING_LEASE_MAX_USD),
    ttlMs: config.BILLING_LEASE_TTL_MS,
    idleMs: config.BILLING_LEASE_IDLE_MS,
  };
  const billing = new Billing(ledger, {
    now,
    holdTtlMs: config.BILLING_HOLD_TTL_MS,
    logger,
    journal,
    onLoss: createLossAlert(logger, metrics),
    leases,
  });
  const idempotencyKeys = new SqlIdempotencyStore(db);
  const idempotency = new Idempotency(idempotencyKeys, ledger, {
    now,
    keyTtlMs: config.IDEMPOTENCY_KEY_TTL_MS,
    leaseMs: config.BILLING_HOLD_TTL_MS,
    maxBodyBytes: IDEMPOTENT_BODY_LIMIT_BYTES,
  });
  const blobs = buildBlobStore(config);
  const media = new SafeMediaLoader({
    policy: AddressPolicy.parse(config.MEDIA_FETCH_ALLOW),
    maxBytes: config.MEDIA_FETCH_MAX_BYTES,
    timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
    maxRedirects: MEDIA_FETCH_MAX_REDIRECTS,
  });
  const fileLinks = new FileLinks(fileLinkSecret(config, logger), publicBaseUrl(config, logger));
  const redis = await connectRedis(config, logger);
  const embeddingDimensions = (model: string) => catalog.find(model)?.capabilities.embedding_dimensions ?? 1536;
  const tokenWork = new WorkerPoolTokenWork({
    threads: config.TOKENIZER_THREADS,
    taskTimeoutMs: config.TOKENIZER_TASK_TIMEOUT_MS,
  });
  const tokenizedChars = counter(
    metrics,
    'gateway_tokenized_chars_total',
    'Characters tokenized on the request path, by thread (event_loop or worker)',
    ['thread'],
  );
  const tokens = new TokenCounter(tokenWork, {
    queue: {
      concurrency: config.TOKENIZER_THREADS,
      maxWaiting: config.TOKENIZER_MAX_WAITING,
      maxWaitingPerOwner: config.TOKENIZER_MAX_WAITING_PER_ACCOUNT,
    },
    onCounted: (thread, chars) => tokenizedChars.inc({ thread }, chars),
  });
  const clips = new ClipEncoder();
  const providers = buildProviders(upstreams, process.env, { embeddingDimensions, tokens, clips });
  for (const [name, slot] of providers) {
    if ('missingCredential' in slot)
      logger.warn(
        { provider: name, env: slot.missingCredential },
        'provider skipped: its API key is not set (gateway_misconfigured for models only it serves)',
      );
  }
  const routes = new RouteTable(upstreams, providers, catalog);
  catalog.reflectRoutes(routes);
  const alert = createChainAlert(logger, metrics);
  const chat = new ChatService(
    catalog,
    routes,
    billing,
    tokens,
    { maxMessageChars: config.MAX_MESSAGE_CHARS, defaultMaxOutputTokens: config.DEFAULT_MAX_OUTPUT_TOKENS },
    media,
  );
  const jobs: JobStore = new SqlJobStore(db);
  const onJobError = (err: unknown, jobId: string) => logger.error({ err, jobId }, 'job failed unexpectedly');
  // Wake-ups for jobs: in this process on the embedded default, BullMQ on the shared Redis at scale.
  const jobQueue =
    config.REDIS_URL === undefined
      ? new InProcessJobQueue()
      : await BullMqJobQueue.connect(config.REDIS_URL, config.JOB_QUEUE_PREFIX, (err) =>
          logger.warn({ err }, 'job queue redis'),
        );
  const jobRunner = new JobRunner(jobs, jobQueue, {
    leaseMs: config.JOB_LEASE_MS,
    claimBatch: JOB_CLAIM_BATCH,
    now,
    onUnexpected: onJobError,
  });
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
  const chainHooks = (requestId: string, slug: string, deadlineMs = config.REQUEST_DEADLINE_MS) => ({
    slug,
    requestId,
    deadlineAtMs: now() + deadlineMs,
    budgetMs: deadlineMs,
    onExhausted: alert,
  });
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
  const audioJobs = new MediaJobs(SPEECH, mediaJobDeps);
  const musicJobs = new MediaJobs(MUSIC, mediaJobDeps);
  const videoJobs = new VideoJobs(mediaJobDeps);
  const topazImageJobs = new MediaJobs(IMAGE_RESTORATION, mediaJobDeps);
  const topazVideoJobs = new MediaJobs(VIDEO_RESTORATION, mediaJobDeps);
  const chatRooms = new ChatRooms({ store: new SqlChatStore(db), catalog, chat, imageJobs, now });
  const market = buildMarket(db, ledger, now, config, marketFxRateRubMicro, (err) =>
    logger.warn({ err }, 'rental upkeep failed'),
  );
  const alerts = new SqlAlertStore(db);
  // Without a bot token the embedded default logs each alert instead (README "Configuration").
  const notifier =
    config.MESSENGER_BOT_TOKEN === undefined
      ? new LogNotifier(logger)
      : new MessengerBotNotifier({ token: config.MESSENGER_BOT_TOKEN, baseUrl: config.MESSENGER_API_BASE });
  const rentalAlerts = new RentalAlerts({ store: alerts, notifier, now, logger });
  const recommendations = await blameSetting(
    'RECOMMENDATION_MODEL',
    config.RECOMMENDATION_MODEL ?? '',
    () =>
      new Recommendations({
        store: market.store,
        chat,
        catalog,
        now,
        logger,
        settings: { offlineAfterMs: config.MACHINE_OFFLINE_MS, model: config.RECOMMENDATION_MODEL },
      }),
  );
  const sshSockets = await openSshSockets(config, market.sshProxy, logger);
  jobRunner.start();
  const background = [
    [
      new Periodic(
        () => ledger.expireHolds(now()),
        (err) => logger.warn({ err }, 'hold sweep failed'),
      ),
      config.HOLD_SWEEP_MS,
    ],
    [
      new Periodic(
        () => idempotencyKeys.expire(now()),
        (err) => logger.warn({ err }, 'idempotency key sweep failed'),
      ),
      config.HOLD_SWEEP_MS,
    ],
    [
      new Periodic(
        () => retryJournaledCharges(journal, billing),
        (err) => logger.warn({ err }, 'journaled charges still not posted'),
      ),
      config.CHARGE_RETRY_MS,
    ],
    [
      new Periodic(
        () => billing.tickLeases(),
        (err) => logger.warn({ err }, 'billing lease upkeep failed'),
      ),
      LEASE_TICK_MS,
    ],
    [
      new Periodic(
        () => market.rentals.sweep(),
        (err) => logger.warn({ err }, 'rental sweep failed'),
      ),
      config.RENTAL_SWEEP_MS,
    ],
    [
      new Periodic(
        () => market.volumes.sweep(),
        (err) => logger.warn({ err }, 'volume sweep failed'),
      ),
      config.RENTAL_SWEEP_MS,
    ],
    [
      new Periodic(
        () => market.machines.applyDuePriceRises(),
        (err) => logger.warn({ err }, 'price rise upkeep failed'),
      ),
      config.RENTAL_SWEEP_MS,
    ],
    [
      new Periodic(
        () => rentalAlerts.run(),
        (err) => logger.warn({ err }, 'rental alerts failed'),
      ),
      config.ALERTS_INTERVAL_MS,
    ],
    [
      new Periodic(
        () => market.store.refreshReliability(now()),
        (err) => logger.warn({ err }, 'machine reliability refresh failed'),
      ),
      RELIABILITY_REFRESH_MS,
    ],
    [
      new Periodic(
        () => market.sshProxy.sync(),
        (err) => logger.warn({ err }, 'SSH proxy sync failed'),
      ),
      SSH_PROXY_SYNC_MS,
    ],
    [
      new Periodic(
        () => blobs.sweep(now()),
        (err) => logger.warn({ err }, 'hosted file sweep failed'),
      ),
      config.BLOB_SWEEP_MS,
    ],
    [
      new Periodic(
        () => jobs.expire(now()),
        (err) => logger.warn({ err }, 'job record sweep failed'),
      ),
      config.HOLD_SWEEP_MS,
    ],
    // Started once every kind of job has its work registered: a job claimed before that would sit idle under our lease.
    [
      new Periodic(
        () => jobRunner.resumeOrphans(),
        (err) => logger.warn({ err }, 'claiming the jobs of dead workers failed'),
      ),
      config.JOB_CLAIM_MS,
    ],
  ] as const;
  for (const [task, intervalMs] of background) task.start(intervalMs);
  const throughput = new ThroughputTracker({ windowMs: config.THROUGHPUT_WINDOW_MS, now });
  return {
    config,
    logger,
    now,
    contract,
    db,
    apiKeys,
    authenticator,
    keyUsage,
    catalog,
    ledger,
    billing,
    idempotency,
    usageLog,
    usage: new UsageReader(usageLog, (accountId) => billing.settled(accountId)),
    rateLimiter: buildRateLimiter(redis, config, logger),
    routes,
    chat,
    tokens,
    blobs,
    fileLinks,
    media,
    jobs,
    chatJobs,
    imageJobs,
    audioJobs,
    musicJobs,
    videoJobs,
    topazImageJobs,
    topazVideoJobs,
    chatRooms,
    recommendations,
    jobRunner,
    throughput,
    metrics,
    chainHooks,
    market,
    alerts,
    marketFxRateRubMicro,
    async close() {
      for (const [task] of background) await task.stop();
      await notifier.close();
      await sshSockets?.close();
      await market.registry.close();
      await jobRunner.close();
      await billing.close();
      await ledger.drain();
      await keyUsage.stop();
      await jobs.close();
      await tokenWork.close();
      await clips.close();
      await blobs.close();
      await media.close();
      await redis?.close().catch(() => undefined);
      await checkpointer?.stop();
      await db.knex.destroy();
    },
  };
}
