/**
 * The framework's ceiling: express 5 in front of the same pass-through as bare-proxy.ts, with no middleware
 * and no logic (no body parsing, no validation). Whatever the gateway costs beyond this is its own work.
 *
 * Run as a process: `UPSTREAM_URL=http://127.0.0.1:PORT node --import tsx test/bench/express-proxy.ts` prints
 * `{"port": N}` once it listens on 127.0.0.1 and exits on SIGTERM or when its stdin closes.
 */
import { createServer } from 'node:http';
import express from 'express';
import { passThrough, serveUntilStopped, upstreamFromEnv } from './bare-proxy.js';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const forward = passThrough(upstreamFromEnv());
app.use((req, res) => forward(req, res));

const server = createServer(app);
server.keepAliveTimeout = 30_000;
await serveUntilStopped(server);
