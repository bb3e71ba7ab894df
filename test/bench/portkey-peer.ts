/**
 * The peer gateway of `make bench`: Portkey's open-source gateway, pinned, installed from the npm registry into a
 * scratch folder (never into this project's dependencies), run as its own process on loopback and routed to the
 * same fake upstream as every other target. `@hono/node-server` is held at 1.13.5 by an npm override: newer
 * versions break Portkey's streaming.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { sleep } from '../setup/time.js';

export const PORTKEY_VERSION = '1.15.2';
const FOLDER = join(PROJECT_ROOT, '.cache', 'bench-peers', `portkey-${PORTKEY_VERSION}`);
const ENTRY = join(FOLDER, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
const run = promisify(execFile);

/** Installs the pinned peer once; later runs reuse the folder. */
export async function installPortkey(log: (line: string) => void): Promise<void> {
  if (existsSync(ENTRY)) return;
  log(`bench: installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${FOLDER}`);
  mkdirSync(FOLDER, { recursive: true });
  const manifest = {
    name: 'bench-peer-portkey',
    private: true,
    dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
    overrides: { '@hono/node-server': '1.13.5' },
  };
  writeFileSync(join(FOLDER, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: FOLDER });
}

/** Starts the peer on `port` (loopback, production mode, no UI) and resolves once it answers. */
export async function startPortkey(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['-r', join(PROJECT_ROOT, 'test', 'bench', 'loopback-preload.cjs'), ENTRY, `--port=${port}`, '--headless'],
    {
      cwd: FOLDER,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`portkey exited with ${child.exitCode}`);
    if (
      await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    if (Date.now() > deadline) throw new Error('portkey did not answer within 30 s');
    await sleep(200);
  }
}

/** How every request reaches the fake upstream through Portkey (its OpenAI provider, with a custom host). */
export function portkeyHeaders(fakeOrigin: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${fakeOrigin}/v1` };
}
