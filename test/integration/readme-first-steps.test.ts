/**
 * README "First steps", run as written by bash (issue 24: they work verbatim on a fresh clone): only `make run`
 * becomes the server it ends in (the build is not this test's), on a free port and a scratch database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cgw-first-steps-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function firstSteps(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## First steps'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README "First steps" has no sh block');
  return block;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `script` in bash as its own process group, so the server it starts in the background dies with it whatever happens. */
function runScript(script: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn('bash', ['-c', script], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(killGroup, 50_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      killGroup();
      if (code === 0) resolve(stdout);
      else reject(new Error(`first steps exited ${code}: ${stderr.slice(-1000)}`));
    });
  });
}

it('README "First steps" serve, create a funded account and use it, verbatim', async () => {
  const steps = firstSteps();
  expect(steps).toMatch(/^make run &/);
  const port = await freePort();
  const script = steps
    .replace(/^make run &/, 'node --import tsx src/main.ts &')
    .replaceAll('localhost:8080', `localhost:${port}`);
  const env = {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
    CHARGE_JOURNAL_DIR: join(dir, 'pending'),
    BLOB_DIR: join(dir, 'files'),
    SSH_PROXY: 'off',
    LOG_LEVEL: 'warn',
  };
  const stdout = await runScript(script, env);
  // The server writes its log lines to the same terminal: each step's answer is found by its shape.
  const answers = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
  const find = (shape: Record<string, unknown>) =>
    answers.find((a) => expect.objectContaining(shape).asymmetricMatch(a));
  expect(find({ data: expect.objectContaining({ email: 'you@example.com', balance_usd: 10 }) })).toBeDefined();
  expect(find({ object: 'chat.completion', model: 'gpt-5-mini' })).toBeDefined();
  // Usage lines are written in batches: the call answers, whether the chat's line is in yet or not.
  expect(find({ exception: 0, data: expect.objectContaining({ requests: expect.any(Array) }) })).toBeDefined();
  const models = answers.find((a) => typeof a === 'number');
  expect(Number(models)).toBeGreaterThan(300);
});
