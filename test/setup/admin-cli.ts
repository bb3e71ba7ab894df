/**
 * The real admin CLI (src/cli/admin.ts) in a child process, as operators run it, on the database URL given; and the
 * checks of its pipe-friendly contract: one JSON object on stdout, one JSON line on stderr on failure, exit 0/1/2.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

const TSX = join(process.cwd(), 'node_modules/.bin/tsx');
const CLI = join(process.cwd(), 'src/cli/admin.ts');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runAdmin(databaseUrl: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(TSX, [CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Success: exactly one JSON line on stdout and nothing on stderr. */
export function ok(run: Run): Record<string, unknown> {
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toMatch(/^[^\n]+\n$/);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** Failure: nothing on stdout, exactly one JSON line on stderr, no stack trace. */
export function failed(run: Run, code: number): { error: string; message: string } {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return JSON.parse(run.stderr) as { error: string; message: string };
}
