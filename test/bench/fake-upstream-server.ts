/**
 * The benchmark's upstream: test/fixtures/fake-upstream.ts in a process of its own, so that answering requests
 * never takes event-loop time from the process being measured. Started by run.ts; prints one JSON line
 * `{"port": N}` on stdout once it listens, and exits on SIGTERM or when its stdin closes (the parent went away).
 *
 * Behaviour per request: a chat whose last message contains HOLD_MARKER is a "slow upstream" stream (one
 * content chunk, then silence with the connection open, until the caller hangs up); every other request is
 * answered at once. Env: BENCH_STREAM_CHUNKS (content chunks per chat answer, default 16), BENCH_HOLD_MARKER.
 */
import { type FakeBehaviour, type RecordedRequest, startFakeUpstream } from '../fixtures/fake-upstream.js';

/** run.ts puts the same marker in the messages of the streams it holds open. */
const HOLD_MARKER = process.env.BENCH_HOLD_MARKER ?? '[bench:hold]';

function wantsHold(request: RecordedRequest): boolean {
  const body = request.body as { messages?: { content?: unknown }[] } | undefined;
  const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined;
  return typeof last?.content === 'string' && last.content.includes(HOLD_MARKER);
}

async function main(): Promise<void> {
  const fake = await startFakeUpstream({
    streamChunks: Number(process.env.BENCH_STREAM_CHUNKS ?? 16),
    behaviour: (request): FakeBehaviour => (wantsHold(request) ? { stallAfterChunks: 1 } : 'ok'),
  });
  // The fixture records every request for tests to inspect; a benchmark sends hundreds of thousands, so the
  // record is cut back often to keep this process's heap (and its GC pauses) small.
  const trim = setInterval(() => {
    if (fake.requests.length > 2_000) fake.requests.length = 0;
  }, 200);
  const { port } = new URL(fake.baseUrl);
  process.stdout.write(`${JSON.stringify({ port: Number(port) })}\n`);
  const stop = (): void => {
    clearInterval(trim);
    void fake.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('end', stop);
  process.stdin.resume();
}

await main();
