/**
 * The soak's load: an open loop at a fixed rate (a steady arrival of requests whatever the answers' speed, as real
 * clients send them), round robin over the gateway processes, cycling through non-stream chat, chat streams,
 * embeddings and image jobs (each job polled to its end, each poll on the next process). It keeps what the books
 * must show at the end (the ids every answer and every completed job must have a usage line under) and, per sample
 * window, the answers' latencies and counts.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { newId } from '../../src/lib/ids.js';
import { sleep } from '../setup/time.js';
import { MODELS } from './upstream.js';

export type Kind = 'chat' | 'stream' | 'embeddings' | 'image';

/** Per 10 requests: 3 chats, 4 streams, 2 embeddings, 1 image job (whose polls add about 4 more GETs). */
const CYCLE: Kind[] = [
  'stream',
  'chat',
  'embeddings',
  'stream',
  'chat',
  'image',
  'stream',
  'chat',
  'embeddings',
  'stream',
];
const JOB_POLL_MS = 500;
const JOB_WITHIN_MS = 120_000;
const ANSWER_WITHIN_MS = 60_000;

/** What happened in one sample window. */
export interface Window {
  /** Client-side latencies of the paid calls answered (send to last byte; a stream read to its end), ms. */
  latenciesMs: number[];
  /** Paid calls answered (any status). */
  requests: number;
  /** Job polls answered. */
  polls: number;
  /** Calls failed: a status other than 200/202, a stream without `[DONE]`, a job failed, a connection error. */
  errors: number;
}

export interface LoadTotals extends Omit<Window, 'latenciesMs'> {
  byKind: Record<Kind, number>;
  jobsCompleted: number;
}

export interface LoadOptions {
  origins: string[];
  apiKey: string;
  rps: number;
  /** Past this many calls (and job polls) under way, a due call is counted failed instead of sent: a backlog. */
  maxInFlight: number;
}

const emptyWindow = (): Window => ({ latenciesMs: [], requests: 0, polls: 0, errors: 0 });

function requestFor(kind: Kind): { path: string; body: string } {
  const messages = [{ role: 'user', content: 'Soak: one sentence about gateways.' }];
  const chat = { model: MODELS.chat, messages, max_tokens: 64 };
  if (kind === 'chat') return { path: '/v1/compat/chat/completions', body: JSON.stringify(chat) };
  if (kind === 'stream')
    return {
      path: '/v1/compat/chat/completions',
      body: JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true } }),
    };
  if (kind === 'embeddings')
    return {
      path: '/v1/compat/embeddings',
      body: JSON.stringify({ model: MODELS.embeddings, input: ['Soak: a sentence to embed.', 'And another.'] }),
    };
  // A prompt of its own per job, so that no two jobs look alike to any cache.
  return {
    path: '/v1/llm/images/jobs',
    body: JSON.stringify({ model: MODELS.image, prompt: `A lighthouse, ${newId('soak')}` }),
  };
}

export class MixedLoad {
  /** Request ids of every whole 200 and ids of every completed job: each must have exactly one usage line. */
  readonly billable = new Set<string>();
  /** Request ids of answers that failed part way: a usage line under one of them is not an error. */
  readonly failedIds = new Set<string>();
  readonly totals: LoadTotals = {
    requests: 0,
    polls: 0,
    errors: 0,
    jobsCompleted: 0,
    byKind: { chat: 0, stream: 0, embeddings: 0, image: 0 },
  };
  /** The first few failures, as they were seen. */
  readonly firstErrors: string[] = [];
  private window = emptyWindow();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 });
  private readonly headers: Record<string, string>;
  private ticker: NodeJS.Timeout | undefined;
  private startedAtMs = 0;
  private sent = 0;
  private turn = 0;

  constructor(private readonly options: LoadOptions) {
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      'content-type': 'application/json',
      'user-agent': 'compute-gateway-soak/1',
    };
  }

  start(): void {
    this.startedAtMs = performance.now();
    this.ticker = setInterval(() => this.tick(), 20);
  }

  /** The window since the last call, and a new one begun. */
  takeWindow(): Window {
    const taken = this.window;
    this.window = emptyWindow();
    return taken;
  }

  /** Stops sending; resolves once every call and job poll under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.ticker);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  /** Sends whatever is due by now: the rate holds even when a tick comes late. */
  private tick(): void {
    const due = Math.floor(((performance.now() - this.startedAtMs) / 1000) * this.options.rps);
    while (this.sent < due) {
      const kind = CYCLE[this.sent % CYCLE.length]!;
      this.sent++;
      if (this.inFlight.size >= this.options.maxInFlight) {
        this.fail(`${kind}: not sent, ${this.inFlight.size} calls under way`, null);
        continue;
      }
      const call: Promise<void> = this.call(kind).finally(() => this.inFlight.delete(call));
      this.inFlight.add(call);
    }
  }

  private nextOrigin(): string {
    return this.options.origins[this.turn++ % this.options.origins.length]!;
  }

  private fail(what: string, requestId: string | null): void {
    this.window.errors++;
    this.totals.errors++;
    if (requestId !== null) this.failedIds.add(requestId);
    if (this.firstErrors.length < 20) this.firstErrors.push(what);
  }

  private async call(kind: Kind): Promise<void> {
    const { path, body } = requestFor(kind);
    const started = performance.now();
    let answer: { status: number; requestId: string | null; text: string };
    try {
      answer = await this.send('POST', this.nextOrigin() + path, body);
    } catch (err) {
      this.fail(`${kind}: ${err instanceof Error ? err.message : String(err)}`, null);
      return;
    }
    this.window.latenciesMs.push(performance.now() - started);
    this.window.requests++;
    this.totals.requests++;
    this.totals.byKind[kind]++;
    const whole = kind !== 'stream' || answer.text.includes('data: [DONE]');
    if (answer.status !== (kind === 'image' ? 202 : 200) || !whole) {
      this.fail(`${kind}: ${answer.status} ${answer.text.slice(0, 200)}`, answer.requestId);
      return;
    }
    if (kind === 'image') await this.untilJobDone(JSON.parse(answer.text).data.job_id as string);
    else if (answer.requestId === null) this.fail(`${kind}: 200 without X-Request-ID`, null);
    else this.billable.add(answer.requestId);
  }

  /** Polls the job on the next process each time, until it is completed (billable) or failed (an error). */
  private async untilJobDone(jobId: string): Promise<void> {
    const deadline = Date.now() + JOB_WITHIN_MS;
    while (Date.now() < deadline) {
      await sleep(JOB_POLL_MS);
      const poll = await this.send('GET', `${this.nextOrigin()}/v1/llm/images/jobs/${jobId}`).catch(() => null);
      if (poll === null) continue;
      this.window.polls++;
      this.totals.polls++;
      const status = poll.status === 200 ? (JSON.parse(poll.text).data?.status as string) : null;
      if (status === 'completed') {
        this.totals.jobsCompleted++;
        this.billable.add(jobId);
        return;
      }
      if (status === 'failed' || (poll.status !== 200 && poll.status < 500)) {
        this.fail(`image job ${jobId}: ${poll.status} ${poll.text.slice(0, 200)}`, jobId);
        return;
      }
    }
    this.fail(`image job ${jobId}: not done within ${JOB_WITHIN_MS / 1000} s`, jobId);
  }

  private async send(method: string, url: string, body?: string) {
    const answer = await request(url, {
      method,
      headers: this.headers,
      ...(body === undefined ? {} : { body }),
      dispatcher: this.agent,
      headersTimeout: ANSWER_WITHIN_MS,
      bodyTimeout: ANSWER_WITHIN_MS,
    });
    const text = await answer.body.text();
    const requestId = answer.headers['x-request-id'];
    return { status: answer.statusCode, requestId: typeof requestId === 'string' ? requestId : null, text };
  }
}
