/**
 * The paid load of three-gateways.test.ts over a gateway fleet (test/setup/gateway-fleet.ts): its upstream (a fake that
 * notes which process asked for each image render), the requests sent and how each was answered, a rental whose agent
 * heartbeats, image jobs polled to their end on whichever process comes next, and the checks of what the ledger says.
 */
import { expect } from 'vitest';
import { openLedger } from '../../src/adapters/ledger/open.js';
import type { Database } from '../../src/db/connect.js';
import { newId } from '../../src/lib/ids.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { accountLedger, type GatewayFleet, holdsOf } from '../setup/gateway-fleet.js';
import { MACHINE } from '../setup/market.js';
import { micros } from '../setup/money.js';
import { sleep } from '../setup/time.js';
import { writeUpstreamsFile } from '../setup/upstreams.js';

export type Kind = 'chat' | 'stream' | 'embeddings' | 'image';

/** One paid request and its answer. */
export interface Sent {
  kind: Kind;
  server: number;
  startedAtMs: number;
  /** null when the connection failed: the process died under the request. */
  status: number | null;
  requestId: string | null;
  /** Read to its end: a stream to its `[DONE]`, anything else whole. */
  whole: boolean;
  /** The error code of a refusal. */
  code: string | null;
  /** An image job taken: its id and prompt (unique, so the upstream's renders tell which job they were). */
  jobId: string | null;
  prompt: string | null;
}

/** An image render the upstream was asked for. */
export interface Render {
  server: number;
  prompt: string;
  atMs: number;
}

/**
 * The upstream of every route, and its upstreams file: chat (streams of 8 frames 100 ms apart), embeddings, and image
 * renders that take `renderMs`, each noted in `renders` with the process that asked (its credential says which,
 * FLEET_UPSTREAM_KEY) and the prompt (which says the job).
 */
export async function recordingUpstream(renders: Render[], renderMs: number) {
  const fake = await startFakeUpstream({
    behaviour: (request) => {
      if (!request.path.endsWith('/images/generations')) return { slowFirstByteMs: 40 };
      const server = Number(/gateway-(\d+)/.exec(String(request.headers.authorization))?.[1]);
      renders.push({ server, prompt: String((request.body as { prompt?: unknown }).prompt), atMs: Date.now() });
      return { slowFirstByteMs: renderMs };
    },
    streamChunks: 8,
    chunkIntervalMs: 100,
    usage: { promptTokens: 900, completionTokens: 400 },
  });
  const route = { url: fake.baseUrl, apiKeyEnv: 'FLEET_UPSTREAM_KEY' };
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'fake', ...route, cost: { input: 0.1, output: 1 } }],
    'text-embedding-3-small': [{ provider: 'fake', ...route, cost: { input: 0.01 } }],
    'imgG-4o': [{ provider: 'images', type: 'openai-images', ...route, cost: { perRequest: 0.01 } }],
  });
  return { fake, upstreams };
}

const MESSAGES = [{ role: 'user', content: 'Tell me something.' }];

function request(kind: Kind): { path: string; body: Record<string, unknown> } {
  const chat = { model: 'gpt-5-mini', messages: MESSAGES, max_tokens: 600 };
  if (kind === 'chat') return { path: '/v1/compat/chat/completions', body: chat };
  if (kind === 'stream') return { path: '/v1/compat/chat/completions', body: { ...chat, stream: true } };
  if (kind === 'embeddings')
    return { path: '/v1/compat/embeddings', body: { model: 'text-embedding-3-small', input: ['one line', 'another'] } };
  return { path: '/v1/llm/images/jobs', body: { model: 'imgG-4o', prompt: `A lighthouse, ${newId('take')}` } };
}

/** Sends one paid request of `kind` to `server` (or the next live process) and notes how it was answered. */
export async function sendPaid(fleet: GatewayFleet, key: string, kind: Kind, server = fleet.next()): Promise<Sent> {
  const { path, body } = request(kind);
  const startedAtMs = Date.now();
  const prompt = kind === 'image' ? String(body.prompt) : null;
  try {
    const answer = await fleet.send('POST', path, { key, body, server });
    const json = answer.body as { error?: { code?: string }; data?: { error_code?: string; job_id?: string } };
    return {
      kind,
      server,
      startedAtMs,
      status: answer.status,
      requestId: answer.requestId,
      whole: kind !== 'stream' || answer.status !== 200 || answer.text.includes('data: [DONE]'),
      code: json?.error?.code ?? json?.data?.error_code ?? null,
      jobId: answer.status === 202 ? (json?.data?.job_id ?? null) : null,
      prompt,
    };
  } catch {
    return { kind, server, startedAtMs, status: null, requestId: null, whole: false, code: null, jobId: null, prompt };
  }
}

/** Sends every request of `kinds`, `workers` at a time, round robin over the live processes. */
export async function runToEnd(fleet: GatewayFleet, key: string, kinds: Kind[], workers: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  let next = 0;
  const worker = async () => {
    while (next < kinds.length) sent.push(await sendPaid(fleet, key, kinds[next++]!));
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return sent;
}

const CYCLE: Kind[] = ['stream', 'chat', 'image', 'stream', 'embeddings'];

/** Paid requests from `workers` loops until stopped, knowing what is in flight on each process. */
export class Load {
  private readonly sent: Sent[] = [];
  private readonly inFlight = new Map<number, { kind: Kind; server: number; startedAtMs: number }>();
  private stopped = false;
  private readonly running: Promise<void>;
  private seq = 0;

  constructor(
    private readonly fleet: GatewayFleet,
    private readonly key: string,
    workers: number,
  ) {
    this.running = Promise.all(Array.from({ length: workers }, (_, w) => this.loop(w))).then(() => undefined);
  }

  private async loop(w: number): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const kind = CYCLE[(w + i) % CYCLE.length]!;
      const server = this.fleet.next();
      const ticket = this.seq++;
      this.inFlight.set(ticket, { kind, server, startedAtMs: Date.now() });
      const done = await sendPaid(this.fleet, this.key, kind, server);
      this.inFlight.delete(ticket);
      this.sent.push(done);
    }
  }

  /** Whole answers (a 200, or an image job taken) so far. */
  answered(): number {
    return this.sent.filter((s) => (s.status === 200 || s.status === 202) && s.whole).length;
  }

  answeredSince(ms: number): number {
    return this.sent.filter((s) => s.startedAtMs > ms && (s.status === 200 || s.status === 202) && s.whole).length;
  }

  /** Requests sent to `server` and not answered yet. */
  inFlightOn(server: number): number {
    return [...this.inFlight.values()].filter((f) => f.server === server).length;
  }

  /**
   * A process with a stream under way for a while (its charge still to come) and an image render it asked for within
   * the last `renderAgeMs` (its answer still to come): killing it leaves both unfinished. Null when none has.
   */
  victim(renders: Render[], renderAgeMs: number): number | null {
    const now = Date.now();
    // A stream lasts over 800 ms (8 frames 100 ms apart): one in its first half is far from its charge.
    const streaming = [...this.inFlight.values()].filter(
      (f) => f.kind === 'stream' && now - f.startedAtMs > 150 && now - f.startedAtMs < 450,
    );
    for (const server of this.fleet.alive) {
      const rendering = renders.some((r) => r.server === server && now - r.atMs < renderAgeMs);
      if (rendering && streaming.some((f) => f.server === server)) return server;
    }
    return null;
  }

  /** Stops sending and answers every request sent, once the ones in flight are answered (or failed). */
  async stop(): Promise<Sent[]> {
    this.stopped = true;
    await this.running;
    return this.sent;
  }
}

/** A provider's machine, rented by `renterKey` and reported running; its agent heartbeats until stopped. */
export async function runningRental(fleet: GatewayFleet, renterKey: string, providerKey: string) {
  const machine = await fleet.send('POST', '/v1/provider/machines', {
    key: providerKey,
    body: { ...MACHINE, gpu_name: newId('gpu'), price_per_gpu_hour_usd: 0.144 }, // 40 micro-USD a second
  });
  expect(machine.status, machine.text).toBe(201);
  const machineId: string = machine.body.data.machine_id;
  const rental = await fleet.send('POST', '/v1/instances', {
    key: renterKey,
    body: { offer_id: machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour', gpu_count: 1 },
  });
  expect(rental.status, rental.text).toBe(201);
  const taskId: string = rental.body.data.task_id;
  const beat = () =>
    fleet.send('POST', `/v1/provider/machines/${machineId}/heartbeat`, {
      key: providerKey,
      body: { containers: [{ instance_id: taskId, state: 'running' }] },
    });
  expect((await beat()).status).toBe(200);
  let beating = true;
  const agent = (async () => {
    while (beating) {
      await sleep(300);
      await beat();
    }
  })();
  const stop = async () => {
    beating = false;
    await agent;
    await beat();
  };
  return { taskId, stop };
}

/** Polls every image job taken until it is completed or failed, each poll on the next process; the final views. */
export async function untilJobsDone(
  fleet: GatewayFleet,
  key: string,
  sent: Sent[],
  withinMs: number,
): Promise<Record<string, any>[]> {
  const deadline = Date.now() + withinMs;
  return Promise.all(
    sent
      .filter((s) => s.jobId !== null)
      .map(async (s) => {
        for (;;) {
          const poll = await fleet.send('GET', `/v1/llm/images/jobs/${s.jobId}`, { key });
          const job = poll.body?.data as Record<string, any> | undefined;
          if (job?.status === 'completed' || job?.status === 'failed' || Date.now() > deadline)
            return { ...job, prompt: s.prompt };
          await sleep(100);
        }
      }),
  );
}

/** A usage line as read back: the request (or job) it bills and what it cost. */
export type Line = { requestId: string; costMicros: bigint };
export const total = (amounts: bigint[]) => amounts.reduce((sum, m) => sum + m, 0n);

/** Every job completed, charged its estimate once: one usage line under its id, from the settle of its own hold. */
export async function expectJobsChargedOnce(
  db: Database,
  accountId: string,
  jobs: Record<string, any>[],
  lines: Line[],
): Promise<void> {
  const holds = await holdsOf(db, accountId);
  for (const job of jobs) {
    expect(job).toMatchObject({ status: 'completed', cost_usd: job.estimated_cost_usd });
    expect(lines.filter((l) => l.requestId === job.job_id).map((l) => l.costMicros)).toEqual([
      micros(job.estimated_cost_usd),
    ]);
    expect(holds.find((h) => h.id === `hold:${job.job_id}`)?.status).toBe('posted');
  }
}

/**
 * Once nothing is in flight: what left the balance is the usage lines (and `otherMicros`, charges that have none) to
 * the micro-dollar, as the posted spend says; no charge went past its hold or came after it expired; the books balance.
 */
export async function expectBooks(
  db: Database,
  accountId: string,
  opening: bigint,
  available: bigint,
  lines: Line[],
  otherMicros = 0n,
) {
  const spent = total(lines.map((l) => l.costMicros)) + otherMicros;
  const ledger = openLedger(db);
  expect(await ledger.postedSpend(accountId)).toBe(spent);
  expect(opening - available).toBe(spent);
  expect(await accountLedger(db, accountId).lossesAndLateCharges()).toEqual([]);
  expect(await ledger.sumOfAllBalances()).toBe(0n);
}
