/**
 * The composition root (DESIGN.md 2): configuration in, every part built and wired, adapters chosen by
 * configuration here and nowhere else. One file per module beside this one; background tasks and the shutdown
 * order have their own. Configuration mistakes stop the start before anything is opened, each naming its setting.
 */
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Config } from '../config.js';
import { fxRateToMicro } from '../domain/billing/money.js';
import { ThroughputTracker } from '../domain/catalog/throughput.js';
import { buildAccountAuth } from './accounts.js';
import { startBackgroundTasks } from './background.js';
import { buildBilling } from './billing.js';
import { loadContract } from './config-files.js';
import { openMigratedDatabase } from './database.js';
import type { Deps } from './deps.js';
import { buildFiles } from './files.js';
import { buildJobs } from './jobs.js';
import { buildKeys } from './keys.js';
import { buildMarket, buildRecommendations, buildRentalAlerts, openSshSockets } from './market.js';
import { buildRateLimiter, connectRedis } from './redis.js';
import { shutDown } from './shutdown.js';
import { buildText, loadCatalog, loadUpstreams } from './text.js';
import { buildRails } from './withdrawals.js';

export { CONTRACT_FILE, loadContract } from './config-files.js';
export type { Deps, Market } from './deps.js';

/** The Prometheus registry, holding the process's default metrics (event loop, memory, GC) from the start. */
function processMetrics(): Registry {
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  return metrics;
}

export async function buildDeps(config: Config, logger: Logger, now: () => number = Date.now): Promise<Deps> {
  const marketFxRateRubMicro = fxRateToMicro(config.MARKET_FX_RATE_RUB);
  const contract = loadContract();
  const catalog = await loadCatalog(config, contract);
  const upstreams = await loadUpstreams(config);
  const { db, checkpointer } = await openMigratedDatabase(config, logger);
  const keys = buildKeys(db, config, now, logger);
  const metrics = processMetrics();
  const money = buildBilling(db, config, now, logger, metrics);
  const { billing, ledger } = money;
  const { journal: _journal, idempotencyKeys: _idempotencyKeys, ...handlerMoney } = money; // billing's own, not handlers'
  const files = await buildFiles(config, logger);
  const redis = await connectRedis(config, logger);
  const text = buildText({ config, logger, metrics, now, catalog, upstreams, billing, media: files.media });
  const jobs = await buildJobs({ db, config, logger, now, catalog, ledger, billing, ...files, ...text });
  const onRentalError = (err: unknown) => logger.warn({ err }, 'rental upkeep failed');
  const market = buildMarket(db, ledger, now, config, marketFxRateRubMicro, onRentalError);
  const { alerts, notifier, rentalAlerts } = buildRentalAlerts(db, config, now, logger);
  const rateLimiter = buildRateLimiter(redis, config, logger);
  const base = { db, config, now, logger };
  const { auth, mailer } = await buildAccountAuth({ ...base, keys, rateLimiter });
  const { payments, withdrawals } = await buildRails({ ...base, ledger, keys, auth, market, marketFxRateRubMicro });
  const recommendations = await buildRecommendations(market, text.chat, catalog, config, now, logger);
  const sshSockets = await openSshSockets(config, market.sshProxy, logger);
  jobs.jobRunner.start();
  const context = { config, logger, now, market, rentalAlerts };
  const background = startBackgroundTasks({ ...context, ...money, ...files, ...jobs, ...keys, payments, withdrawals });
  const { tokenWork, clips, ...textDeps } = text;
  return {
    config,
    logger,
    now,
    contract,
    db,
    ...keys,
    catalog,
    ...handlerMoney,
    rateLimiter,
    auth,
    payments,
    withdrawals,
    ...textDeps,
    ...files,
    ...jobs,
    recommendations,
    throughput: new ThroughputTracker({ windowMs: config.THROUGHPUT_WINDOW_MS, now }),
    metrics,
    market,
    alerts,
    marketFxRateRubMicro,
    close: () =>
      shutDown({
        background,
        notifier,
        mailer,
        sshSockets,
        registry: market.registry,
        ...jobs,
        billing,
        ledger,
        keyUsage: keys.keyUsage,
        tokenWork,
        clips,
        ...files,
        redis,
        checkpointer,
        db,
      }),
  };
}
