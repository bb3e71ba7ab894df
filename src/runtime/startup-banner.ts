import type { Config } from '../config.js';
import { redactedUrl } from './startup.js';

const DEFAULT_DATABASE_URL = 'sqlite:data/gateway.sqlite';

/** A browser or curl cannot reach a wildcard address: the banner names the loopback one instead. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * What a person who just ran `make run` needs next (issue 24): where the service is, on which database, and how
 * to make the first account. Written to stderr: stdout stays JSON lines for log collectors.
 */
export function startupBanner(config: Config, port: number, models: number): string {
  const url = `http://${reachableHost(config.HOST)}:${port}`;
  const database = redactedUrl(config.DATABASE_URL);
  // The admin CLI reads DATABASE_URL as the server does: it must name the same database.
  const env = config.DATABASE_URL === DEFAULT_DATABASE_URL ? '' : `DATABASE_URL='${database}' `;
  return [
    `compute-gateway serves ${url} (${models} models; database ${database})`,
    `  first account, funded: ${env}npm run --silent admin -- accounts create --email you@example.com --balance-usd 10`,
    `  then: curl -s ${url}/v1/account -H "Authorization: Bearer <api_key>"   (README "First steps"; Ctrl-C stops)`,
    '',
  ].join('\n');
}
