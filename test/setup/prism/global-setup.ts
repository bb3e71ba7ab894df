/**
 * DESIGN.md 5, `contract:live`: the contract tier's responses are checked by a tool we did not write. This global
 * setup of the `contract` project starts one `prism proxy` on the bundled contract for the whole run, and the router
 * that is its upstream; each test worker replays every request and response its gateways served through it
 * (`replay.ts`) and fails the test on a violation (`hooks.ts`). ARCHITECTURE.md, "The contract, checked twice",
 * says why responses are replayed rather than proxied.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { closedPortUrl } from '../../fixtures/fake-upstream.js';
import { acceptsConnections } from '../tcp-probe.js';
import { sleep } from '../time.js';
import { REPLAY_PORT_HEADER } from './replay-headers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where `prism proxy` listens, for `replay.ts`. */
    prismUrl: string;
  }
}

/** The committed default is the devDependency's binary; PRISM_BIN points elsewhere (another install). */
const PRISM_BIN = process.env['PRISM_BIN'] ?? 'node_modules/.bin/prism';
const CONTRACT = 'generated/openapi.bundled.yaml';
/** Prism reads and dereferences the 15,000-line bundle first: about 3 s quiet, far longer on a loaded machine. */
const START_LIMIT_MS = 90_000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const router = await startRouter();
  const closeRouter = () => new Promise((resolve) => router.server.close(resolve));
  const prism = await startPrism(`http://127.0.0.1:${router.port}`, project.config.root).catch(async (error: Error) => {
    await closeRouter();
    throw error;
  });
  project.provide('prismUrl', prism.url);
  return async () => {
    await prism.stop();
    await closeRouter();
    console.log(`contract:live: Prism checked ${router.served()} responses`);
  };
}

/**
 * Prism has one upstream; every worker has its own replay server. The router passes each of Prism's calls on to the
 * worker named by the call's REPLAY_PORT_HEADER (Prism forwards the request's headers) and the answer back untouched.
 */
async function startRouter(): Promise<{ server: Server; port: number; served: () => number }> {
  let served = 0;
  const server = createServer((req, res) => {
    const port = Number(req.headers[REPLAY_PORT_HEADER]);
    const onward = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        served++;
        res.writeHead(up.statusCode!, up.rawHeaders);
        up.pipe(res);
      },
    );
    onward.once('error', (error) => res.writeHead(502).end(`contract:live router: ${error.message}`));
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address !== null ? address.port : 0, served: () => served };
}

/** `root`: the repository, which PRISM_BIN's default and the contract's path are relative to. */
async function startPrism(upstream: string, root: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = Number(new URL(await closedPortUrl()).port);
  const args = ['proxy', CONTRACT, upstream, '--host', '127.0.0.1', '--port', String(port)];
  // Prism's own answers must never stand in for the gateway's: no CORS replies, no request checks (the gateway's
  // 400s are under test) and no --errors, which would also answer 401 itself for requests without credentials and
  // fail paths the contract lacks. Violations come back in the sl-violations header (replay.ts). Errors only in
  // the log: at info Prism logs every request with its body.
  args.push('--cors=false', '--validate-request=false', '--errors=false', '--verboseLevel', 'error');
  const child = spawn(PRISM_BIN, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(new Error(`contract:live: cannot run ${PRISM_BIN} (make install): ${error.message}`)),
    );
  });
  await spawned;
  await untilListening(port, child, () => log);
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`contract:live: Prism exited (${code ?? signal}) during the run:\n${log}`);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      child.kill('SIGKILL');
    },
  };
}

async function untilListening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + START_LIMIT_MS;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null) throw new Error(`contract:live: Prism exited (${child.exitCode}):\n${log()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`contract:live: Prism did not listen within ${START_LIMIT_MS} ms:\n${log()}`);
    }
    await sleep(200);
  }
}
