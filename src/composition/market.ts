import type { Logger } from 'pino';
import { SqlAlertStore } from '../adapters/alert-store/sql.js';
import { OciImageRegistry } from '../adapters/image-registry/oci-registry.js';
import type { Ledger } from '../adapters/ledger/index.js';
import { SqlMarketStore } from '../adapters/market-store/sql.js';
import { LogNotifier } from '../adapters/notifier/log.js';
import { MessengerBotNotifier } from '../adapters/notifier/messenger-bot.js';
import { SqlSshKeyStore } from '../adapters/ssh-key-store/sql.js';
import { PortListeners, TunnelListener } from '../adapters/ssh-proxy/tcp-listeners.js';
import { TunnelJoiner } from '../adapters/ssh-proxy/tunnel-joiner.js';
import { SqlTunnelStore } from '../adapters/tunnel-store/sql.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { ModelCatalog } from '../domain/catalog/model-catalog.js';
import type { ChatService } from '../domain/chat/chat-service.js';
import { BurstOrders } from '../domain/market/burst-orders.js';
import { Machines } from '../domain/market/machines.js';
import { Recommendations } from '../domain/market/recommendation.js';
import { RentalAlerts } from '../domain/market/rental-alerts.js';
import { SshKeys } from '../domain/market/ssh-keys.js';
import { SshProxy } from '../domain/market/ssh-proxy.js';
import { AddressPolicy } from '../lib/address-policy.js';
import { blameSetting } from '../runtime/startup.js';
import type { Market } from './deps.js';
import { buildRentalBilling } from './rental-billing.js';

const SSH_CONNECT_TIMEOUT_MS = 15_000;

export function buildMarket(
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

/** Rental status alerts (SPEC 6.3); without a bot token the embedded default logs each alert instead (README). */
export function buildRentalAlerts(db: Database, config: Config, now: () => number, logger: Logger) {
  const alerts = new SqlAlertStore(db);
  const notifier =
    config.MESSENGER_BOT_TOKEN === undefined
      ? new LogNotifier(logger)
      : new MessengerBotNotifier({ token: config.MESSENGER_BOT_TOKEN, baseUrl: config.MESSENGER_API_BASE });
  const rentalAlerts = new RentalAlerts({ store: alerts, notifier, now, logger });
  return { alerts, notifier, rentalAlerts };
}

/** GPU recommendations (SPEC 2.13); a RECOMMENDATION_MODEL the catalog cannot serve stops the start naming it. */
export function buildRecommendations(
  market: Market,
  chat: ChatService,
  catalog: ModelCatalog,
  config: Config,
  now: () => number,
  logger: Logger,
): Promise<Recommendations> {
  return blameSetting(
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
}

/**
 * The SSH proxy's sockets in this process: the tunnel port agents dial back to, then a listener per rental port.
 * A process that cannot take the tunnel port (another gateway process on this host holds it) serves no sockets and
 * leaves the proxy to that one; it still allocates ports and answers agents through the database.
 */
export async function openSshSockets(
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
