/** Every command-line program answers --help with its usage on stdout and exit 0, and a wrong option without a stack trace (issue 24). */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

describe('--help', () => {
  it.each([
    ['the provider agent', 'src/agent/cli.ts', /^usage: npm run agent -- --gateway <url> --price-per-gpu-hour <usd>/],
    ['the server', 'src/main.ts', /^usage: node dist\/src\/main\.js/],
    ['the benchmark', 'test/bench/run.ts', /^usage: node --import tsx test\/bench\/run\.ts \[--quick\]/],
  ])('%s prints its usage and exits 0', async (_label, script, usage) => {
    const help = await run(script, '--help');
    expect(help, help.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(usage);
  });

  it('the agent answers an unknown option with the usage, exit 2, no stack trace', async () => {
    const wrong = await run('src/agent/cli.ts', '--gpu', 'rtx');
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/^Unknown option '--gpu'[^\n]*\nusage: npm run agent -- /);
    expect(wrong.stderr).not.toMatch(/\n\s+at /);
  });
});
