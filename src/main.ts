import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, MODEL_CALL_TAGS } from './app.js';
import { buildDeps, type Deps } from './composition/index.js';
import { type Config, loadConfig } from './config.js';
import { createHttpServer } from './http/http-server.js';
import { createLogger } from './runtime/logger.js';
import { logUnhandledRejections } from './runtime/process-guards.js';
import { checkListenable, listenError, STARTUP_ERROR_EXIT, StartupError } from './runtime/startup.js';
import { startupBanner } from './runtime/startup-banner.js';

const USAGE = `usage: node dist/src/main.js   (make run builds and runs it)
Serves the compute-gateway API. Every setting comes from the environment (docs/configuration.md), e.g.
  PORT=8080 HOST=127.0.0.1 DATABASE_URL=sqlite:data/gateway.sqlite node dist/src/main.js
A setting that stops the start is named on one line of stderr, and the exit code is 2.`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

async function listen(server: Server, config: Config): Promise<number> {
  server.listen(config.PORT, config.HOST);
  try {
    await once(server, 'listening');
  } catch (err) {
    throw listenError(err as NodeJS.ErrnoException, config.HOST, config.PORT);
  }
  return (server.address() as AddressInfo).port;
}

/** Settings are checked in the order that costs least to get wrong: the port before the catalog, migrations and the rest. */
async function start(): Promise<{ server: Server; deps: Deps }> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  logUnhandledRejections(logger);
  await checkListenable(config.HOST, config.PORT);
  const deps = await buildDeps(config, logger);
  const server = createHttpServer(createApp(deps, { warmTags: MODEL_CALL_TAGS }));
  const port = await listen(server, config);
  logger.info(
    { host: config.HOST, port, database: deps.db.kind, models: deps.catalog.size },
    'compute-gateway listening',
  );
  process.stderr.write(startupBanner(config, port, deps.catalog.size));
  return { server, deps };
}

/** During a drain, how often connections that fell idle (their last response sent) are closed. */
const IDLE_CLOSE_MS = 100;

/**
 * Graceful drain: stop accepting, let requests in flight finish until SHUTDOWN_DRAIN_MS (a stream runs on after its
 * first token, so without a deadline one stream would hold the stop until the orchestrator's SIGKILL), then close
 * what is still open; hand jobs back, flush batched writes, close the database, exit 0.
 */
async function shutdown({ server, deps }: { server: Server; deps: Deps }, signal: string): Promise<void> {
  const drainMs = deps.config.SHUTDOWN_DRAIN_MS;
  deps.logger.info({ signal, drainMs }, 'draining');
  server.close();
  server.closeIdleConnections();
  // A keep-alive connection is idle once its last response is out: closed then, not at its idle timeout.
  const idle = setInterval(() => server.closeIdleConnections(), IDLE_CLOSE_MS);
  const deadline = setTimeout(() => {
    deps.logger.warn({ drainMs }, 'drain deadline passed: closing the connections still open');
    server.closeAllConnections();
  }, drainMs);
  await once(server, 'close');
  clearInterval(idle);
  clearTimeout(deadline);
  await deps.close();
  process.exit(0);
}

try {
  const running = await start();
  process.once('SIGTERM', () => void shutdown(running, 'SIGTERM'));
  process.once('SIGINT', () => void shutdown(running, 'SIGINT'));
} catch (err) {
  if (!(err instanceof StartupError)) throw err;
  process.stderr.write(`compute-gateway cannot start: ${err.message}\n`);
  process.exit(STARTUP_ERROR_EXIT);
}
