/**
 * `cgw login|logout|balance|models|keys` run as the built binary against a live server: the key is checked before
 * it is saved 0600 under the XDG config dir, profiles are separate, and failures are one line with an exit code
 * by class (packages/cli/README.md).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';
import { cgw, ERROR_LINE, ensureBuilt, tempHome } from './cgw.js';

let h: Harness;
beforeAll(async () => {
  [h] = await Promise.all([startHarness(), ensureBuilt()]);
});
afterAll(() => h.close());

let home: Awaited<ReturnType<typeof tempHome>>;
beforeEach(async () => {
  home = await tempHome();
});
afterEach(() => home.cleanup());

const run = (args: string[], input?: string) => cgw(args, { env: home.env, ...(input === undefined ? {} : { input }) });

async function login(apiKey: string, profile?: string) {
  const args = ['login', '--base-url', h.baseUrl, ...(profile ? ['--profile', profile] : [])];
  const result = await run(args, `${apiKey}\n`);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
}

describe('cgw login', () => {
  it('checks the key, then stores it 0600 in a 0700 dir under XDG_CONFIG_HOME; --profile keeps profiles apart', async () => {
    const first = await h.newAccount('first-cli@example.com', { balanceUsd: 3 });
    const second = await h.newAccount('second-cli@example.com', { balanceUsd: 7.25 });
    const result = await login(first.apiKey);
    expect(result.stdout).toContain('first-cli@example.com');
    await login(second.apiKey, 'work');

    const path = join(home.env.XDG_CONFIG_HOME ?? '', 'cgw', 'config.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home.env.XDG_CONFIG_HOME ?? '', 'cgw'))).mode & 0o777).toBe(0o700);
    const config = JSON.parse(await readFile(path, 'utf8'));
    expect(config.profiles.default).toEqual({ base_url: h.baseUrl, api_key: first.apiKey });
    expect(config.profiles.work).toEqual({ base_url: h.baseUrl, api_key: second.apiKey });

    const mine = JSON.parse((await run(['balance', '--json'])).stdout);
    expect(mine).toMatchObject({ balance_usd: 3, held_usd: 0, available_usd: 3 });
    const work = await run(['balance', '--profile', 'work']);
    expect(work.code).toBe(0);
    expect(work.stdout).toContain('$7.25');
    expect(work.stdout).toContain('second-cli@example.com');

    expect((await run(['logout', '--profile', 'work'])).code).toBe(0);
    const gone = await run(['balance', '--profile', 'work']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(ERROR_LINE);
  });

  it('a wrong key is refused before anything is saved: exit 3, one line with the code and request id', async () => {
    const result = await run(['login', '--base-url', h.baseUrl, '--key', 'cgw_not_a_real_key_at_all']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(ERROR_LINE);
    expect(result.stderr).toMatch(/\(invalid_api_key, request \S+\)/);
    expect(result.stdout).toBe('');
    const saved = await run(['balance']);
    expect(saved.code).toBe(3);
    expect(saved.stderr).toContain('not_logged_in');
  });

  it('CGW_API_KEY and CGW_BASE_URL work with no config file at all', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1.5 });
    const result = await cgw(['balance', '--json'], {
      env: { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).balance_usd).toBe(1.5);
  });
});

describe('cgw models', () => {
  it('a table by default, the catalog as JSON with --json, filtered by --kind', async () => {
    const table = await cgw(['models', '--kind', 'embedding', '--base-url', h.baseUrl], { env: home.env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/model\s+│\s+kind/);
    expect(table.stdout).toContain('embedding');
    const json = await cgw(['models', '--json', '--kind', 'image', '--base-url', h.baseUrl], { env: home.env });
    const catalog = JSON.parse(json.stdout);
    expect(catalog.models.length).toBeGreaterThan(3);
    expect(new Set(catalog.models.map((m: { media_kind: string }) => m.media_kind))).toEqual(new Set(['image']));
    const bad = await cgw(['models', '--kind', 'poetry'], { env: home.env });
    expect(bad.code).toBe(2);
  });
});

describe('cgw keys', () => {
  it('create prints the secret once, list shows it, revoke ends it (the revoked key then gets exit 3)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await login(apiKey);
    const created = JSON.parse((await run(['keys', 'create', '--name', 'ci-runner', '--json'])).stdout);
    expect(created.api_key).toMatch(/^cgw_/);
    const listed = await run(['keys', 'list']);
    expect(listed.stdout).toContain('ci-runner');
    expect(listed.stdout).not.toContain(created.api_key);
    const withNew = await cgw(['balance'], { env: { ...home.env, CGW_API_KEY: created.api_key } });
    expect(withNew.code).toBe(0);
    const revoked = await run(['keys', 'revoke', created.key.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(created.key.id);
    const refused = await cgw(['balance'], { env: { ...home.env, CGW_API_KEY: created.api_key } });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^cgw: .+ \(api_key_revoked, request \S+\)\n$/);
    const unknown = await run(['keys', 'revoke', 'key_doesnotexist']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(ERROR_LINE);
  });

  it('a bad flag is a usage error: exit 2', async () => {
    const result = await run(['keys', 'create', '--rate-limit', 'lots']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--rate-limit');
  });
});
