/**
 * A production deployment must not start while the sandbox would answer real callers at real prices
 * (`SANDBOX_IN_PRODUCTION`, docs/configuration.md): the real entry point, as an operator starts it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Runs src/main.ts until it says it listens (then stops it) or exits; its exit code and output. */
function start(env: Record<string, string>): Promise<{ listening: boolean; code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_URL: 'sqlite::memory:', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('compute-gateway listening')) {
        resolve({ listening: true, code: null, output });
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => resolve({ listening: false, code, output }));
  });
}

describe('NODE_ENV=production and the sandbox', () => {
  it('refuses to start with the default upstreams (every model on the sandbox), naming what to change', async () => {
    const result = await start({ NODE_ENV: 'production' });
    expect(result.listening).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('default_route');
    expect(result.output).toContain('SANDBOX_IN_PRODUCTION=allow');
  });

  it('names a route that points at the sandbox too, and starts with SANDBOX_IN_PRODUCTION=allow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cgw-upstreams-'));
    const file = join(dir, 'upstreams.yaml');
    writeFileSync(
      file,
      [
        'providers:',
        '  play:',
        '    type: sandbox',
        'routes:',
        '  gpt-5-mini:',
        '    - provider: play',
        '      model: gpt-5-mini',
        '',
      ].join('\n'),
    );
    const refused = await start({ NODE_ENV: 'production', UPSTREAMS_FILE: file });
    expect(refused.listening).toBe(false);
    expect(refused.output).toContain('routes.gpt-5-mini');
    expect(
      (await start({ NODE_ENV: 'production', UPSTREAMS_FILE: file, SANDBOX_IN_PRODUCTION: 'allow' })).listening,
    ).toBe(true);
  });
});
