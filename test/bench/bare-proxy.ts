/**
 * The benchmark's lower bound for any proxy: node:http in, node:http out through a keep-alive agent, no
 * framework and no logic. Bodies are piped both ways (an event stream flows chunk by chunk), hop-by-hop headers
 * are dropped, and a client that hangs up takes its upstream request with it.
 *
 * Run as a process: `UPSTREAM_URL=http://127.0.0.1:PORT node --import tsx test/bench/bare-proxy.ts` prints
 * `{"port": N}` once it listens on 127.0.0.1 and exits on SIGTERM or when its stdin closes. express-proxy.ts
 * imports `passThrough` so that the two differ only by the framework.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { fileURLToPath } from 'node:url';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/** A request handler that forwards every request, path and query unchanged, to `upstreamUrl`'s origin. */
export function passThrough(upstreamUrl: string): (req: IncomingMessage, res: ServerResponse) => void {
  const upstream = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024, scheduling: 'lifo' });
  return (req, res) => {
    const outgoing = request(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...endToEnd(req.headers), host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('upstream error');
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    req.pipe(outgoing);
  };
}

/** Listens on 127.0.0.1 (port 0 = any), prints the port as one JSON line, stops on SIGTERM or stdin end. */
export async function serveUntilStopped(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  const stop = (): void => void server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('end', () => process.exit(0));
  process.stdin.resume();
}

export function upstreamFromEnv(): string {
  const url = process.env.UPSTREAM_URL;
  if (url === undefined || url === '') throw new Error('UPSTREAM_URL is required');
  return url;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = createServer(passThrough(upstreamFromEnv()));
  server.keepAliveTimeout = 30_000;
  await serveUntilStopped(server);
}
