/**
 * The soak's upstream: the benchmark's fake (test/bench/fake-upstream-server.ts) in a process of its own, so that
 * answering never takes event-loop time or memory from the processes measured, and an upstreams file that routes the
 * chat, embeddings and image slugs the load uses to it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { writeUpstreamsFile } from '../setup/upstreams.js';

/** Slugs of the catalog (config/catalog.json) the load sends, each routed to the fake. */
export const MODELS = { chat: 'gpt-5-mini', embeddings: 'text-embedding-3-small', image: 'imgG-4o' } as const;

export interface SoakUpstream {
  origin: string;
  /** The upstreams file every gateway process reads (UPSTREAMS_FILE). */
  upstreamsFile: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the fake; resolves once it prints the port it listens on. Its stdin is its lifeline. */
export async function startUpstream(): Promise<SoakUpstream> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/fake-upstream-server.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, BENCH_STREAM_CHUNKS: '16' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('the fake upstream did not start within 60 s')), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /\{"port":(\d+)\}/.exec(buffered);
      if (match === null) return;
      clearTimeout(timer);
      resolve(Number(match[1]));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fake upstream exited with ${code} before listening`));
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  const route = { provider: 'fake', url: origin, idleTimeoutMs: 120_000 };
  const upstreamsFile = writeUpstreamsFile({
    [MODELS.chat]: [{ ...route, cost: { input: 0.2, output: 1.6 } }],
    [MODELS.embeddings]: [{ ...route, cost: { input: 0.012 } }],
    [MODELS.image]: [{ provider: 'images', url: origin, type: 'openai-images', cost: { perRequest: 0.01 } }],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited.finally(() => clearTimeout(timer));
  };
  return { origin, upstreamsFile, child, stop };
}
