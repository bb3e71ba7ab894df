import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { buildDeps } from './container.js';
import { createHttpServer } from './http/http-server.js';
import { createLogger } from './logger.js';
import { logUnhandledRejections } from './process-guards.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
logUnhandledRejections(logger);
const deps = await buildDeps(config, logger);
const server = createHttpServer(createApp(deps, { warmValidators: true })).listen(config.PORT, config.HOST);
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
logger.info({ host: config.HOST, port, database: deps.db.kind, models: deps.catalog.size }, 'compute-gateway listening');

/** Graceful drain: stop accepting, let requests in flight finish, flush batched writes, close the database. */
async function shutdown(signal: string): Promise<void> {
  logger.info({ signal }, 'draining');
  server.close();
  server.closeIdleConnections();
  await once(server, 'close');
  await deps.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
