/**
 * `cgw chat|embed|usage` against a live server on the sandbox upstream: chat streams its answer to stdout (from an
 * argument or stdin), embed prints vectors, and the calls then show in `usage` as a table and in the CSV export;
 * a call with no money is exit 5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';
import { cgw, ERROR_LINE, ensureBuilt, tempHome } from './cgw.js';

let h: Harness;
let home: Awaited<ReturnType<typeof tempHome>>;
let env: Record<string, string>;
beforeAll(async () => {
  [h, home] = await Promise.all([startHarness(), tempHome(), ensureBuilt()]);
  const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
  env = { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl };
});
afterAll(async () => {
  await h.close();
  await home.cleanup();
});

describe('cgw chat', () => {
  it('streams the answer to stdout as it arrives and ends with a newline; --json gives the same text and its usage', async () => {
    const chunks: string[] = [];
    const streamed = await cgw(['chat', '-m', 'gpt-5-mini', 'Name a colour'], {
      env,
      onStdout: (chunk) => chunks.push(chunk),
    });
    expect(streamed.stderr).toBe('');
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toMatch(/\S+\n$/);
    expect(chunks.length).toBeGreaterThan(0);
    const json = await cgw(['chat', '-m', 'gpt-5-mini', '--json', 'Name a colour'], { env });
    const answer = JSON.parse(json.stdout);
    expect(answer.text).toBe(streamed.stdout.slice(0, -1));
    expect(answer.usage).toMatchObject({ prompt_tokens: expect.any(Number), cost: expect.any(Number) });
    expect(answer.usage.cost).toBeGreaterThan(0);
  });

  it('reads the prompt from stdin when none is given', async () => {
    const fromStdin = await cgw(['chat', '-m', 'gpt-5-mini', '--json'], { env, input: 'Name a colour\n' });
    const fromArgument = await cgw(['chat', '-m', 'gpt-5-mini', '--json', 'Name a colour'], { env });
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout).text).toBe(JSON.parse(fromArgument.stdout).text);
    const other = await cgw(['chat', '-m', 'gpt-5-mini', '--json'], { env, input: 'Something else entirely, please' });
    expect(JSON.parse(other.stdout).usage.prompt_tokens).toBeGreaterThan(
      JSON.parse(fromStdin.stdout).usage.prompt_tokens,
    );
    const empty = await cgw(['chat', '-m', 'gpt-5-mini'], { env, input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(ERROR_LINE);
  });

  it('with no money, a paid call is exit 5 with the one-line error', async () => {
    const broke = await h.newAccount();
    const result = await cgw(['chat', '-m', 'gpt-5-mini', 'hello'], {
      env: { ...home.env, CGW_API_KEY: broke.apiKey, CGW_BASE_URL: h.baseUrl },
    });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^cgw: .+ \(insufficient_balance, request \S+\)\n$/);
  });
});

describe('cgw embed', () => {
  it('one vector per argument: a table, or the whole answer with --json', async () => {
    const table = await cgw(['embed', '-m', 'text-embedding-3-small', 'first text', 'second text'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ 0 +│ 1536 +│/);
    expect(table.stdout).toMatch(/│ 1 +│ 1536 +│/);
    const json = JSON.parse(
      (await cgw(['embed', '-m', 'text-embedding-3-small', '--json'], { env, input: 'x y' })).stdout,
    );
    expect(json.data).toHaveLength(1);
    expect(json.data[0].embedding).toHaveLength(1536);
  });
});

describe('cgw usage', () => {
  it('lists the calls just made as a table, as JSON, and as the CSV export', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const mine = { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl };
    expect((await cgw(['chat', '-m', 'gpt-5-mini', 'usage please'], { env: mine })).code).toBe(0);
    expect((await cgw(['embed', '-m', 'text-embedding-3-small', 'usage please'], { env: mine })).code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    const table = await cgw(['usage', '--since', today], { env: mine });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('gpt-5-mini');
    expect(table.stdout).toContain('text-embedding-3-small');
    const json = JSON.parse((await cgw(['usage', '--json'], { env: mine })).stdout);
    expect(json.requests.map((r: { kind: string }) => r.kind).sort()).toEqual(['chat', 'embedding']);
    const csv = await cgw(['usage', '--csv', '--since', today], { env: mine });
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toContain(',');
    expect(csv.stdout).toContain('gpt-5-mini');
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const none = await cgw(['usage', '--since', tomorrow], { env: mine });
    expect(none.stdout).toContain('no billed requests');
    const bad = await cgw(['usage', '--since', 'last tuesday'], { env: mine });
    expect(bad.code).toBe(7);
    expect(bad.stderr).toMatch(ERROR_LINE);
  });
});
