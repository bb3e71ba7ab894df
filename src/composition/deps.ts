import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { components } from '../../generated/openapi.js';
import type { AlertStore } from '../adapters/alert-store/index.js';
import type { ApiKeyStore } from '../adapters/api-keys/index.js';
import type { BlobStore } from '../adapters/blob-store/index.js';
import type { CredentialStore } from '../adapters/credential-store/index.js';
import type { ImageRegistry } from '../adapters/image-registry/index.js';
import type { JobStore } from '../adapters/job-store/index.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { MarketStore } from '../adapters/market-store/index.js';
import type { MediaLoader } from '../adapters/media-fetch/index.js';
import type { RateLimiter } from '../adapters/rate-limiter/index.js';
import type { UsageLogStore } from '../adapters/usage-log/index.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { AuthContext } from '../domain/accounts/auth-context.js';
import type { Billing } from '../domain/billing/billing.js';
import type { Idempotency } from '../domain/billing/idempotency.js';
import type { KeyBudget } from '../domain/billing/key-budget.js';
import type { ModelCatalog } from '../domain/catalog/model-catalog.js';
import type { ThroughputTracker } from '../domain/catalog/throughput.js';
import type { ChatJobs } from '../domain/chat/chat-jobs.js';
import type { ChatService } from '../domain/chat/chat-service.js';
import type { ChatRooms } from '../domain/chat-rooms/chat-rooms.js';
import type { ImageJobs } from '../domain/images/image-jobs.js';
import type { JobRunner } from '../domain/jobs/job-runner.js';
import type { Authenticator } from '../domain/keys/authenticator.js';
import type { KeyUsageRecorder } from '../domain/keys/key-usage-recorder.js';
import type { BurstOrders } from '../domain/market/burst-orders.js';
import type { Machines } from '../domain/market/machines.js';
import type { Recommendations } from '../domain/market/recommendation.js';
import type { Rentals } from '../domain/market/rentals.js';
import type { SshKeys } from '../domain/market/ssh-keys.js';
import type { SshProxy } from '../domain/market/ssh-proxy.js';
import type { Volumes } from '../domain/market/volumes.js';
import type { FileLinks } from '../domain/media/file-links.js';
import type { MediaJobs } from '../domain/media/media-jobs.js';
import type { VideoJobs } from '../domain/media/video-jobs.js';
import type { PaymentsContext } from '../domain/payments/payments-context.js';
import type { WithdrawalsContext } from '../domain/payments/withdrawals-context.js';
import type { RouteTable } from '../domain/routing/route-table.js';
import type { ChainHooks } from '../domain/routing/run-chain.js';
import type { TokenCounter } from '../domain/text/token-counter.js';
import type { UsageReader } from '../domain/usage/usage-reader.js';

/** Everything a handler may use; built once by the composition root (composition/index.ts). */
export interface Deps {
  config: Config;
  logger: Logger;
  now: () => number;
  contract: OpenAPIV3.DocumentV3_1;
  db: Database;
  apiKeys: ApiKeyStore;
  /** Sign-in credentials (password, TOTP, recovery codes), used link nonces and sessions of the accounts. */
  credentials: CredentialStore;
  authenticator: Authenticator;
  keyUsage: KeyUsageRecorder;
  catalog: ModelCatalog;
  ledger: Ledger;
  billing: Billing;
  /** Per-key spend limits: the holds of limited keys' requests, and where each key stands (issue 26 item 6). */
  keyBudget: KeyBudget;
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
  /** Sign-up, sign-in sessions, password reset, the second factor and their mail (issue 26, DESIGN.md 10). */
  auth: AuthContext;
  /** Deposits by card, SBP and USDT-TRC20, and the processors' webhooks (issue 27, DESIGN.md 11). */
  payments: PaymentsContext;
  /** USDT-TRC20 withdrawals of provider earnings and the address book (issue 27 item 4). */
  withdrawals: WithdrawalsContext;
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

/** The GPU marketplace's parts, built in composition/market.ts. */
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
