/**
 * A client project in a temporary folder, as a client team outside this repository would have one: a generator's
 * output plus a small program, compiled by `tsc` in strict mode and run with node. Only what a client team's own
 * project would hold goes in there; the generators and `tsc` are run from this repository's node_modules.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = process.cwd();
export const CONTRACT = join(ROOT, 'generated/openapi.bundled.yaml');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** Well inside the 180 s a test of this kind gets, so a stuck child is reported as such rather than as a timeout. */
const CHILD_LIMIT_MS = 150_000;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A node script (a package's bin, `tsc`, a compiled program) on this very node, without a shell. */
export function runNode(
  script: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: CHILD_LIMIT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

/**
 * A package's own CLI, found through its package.json: names in node_modules/.bin can clash (@redocly/cli also
 * installs an `openapi`), and which package wins depends on install order.
 */
export function runBin(pkg: string, args: string[], cwd: string): Promise<Run> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return runNode(join(ROOT, 'node_modules', pkg, bin), args, { cwd });
}

/** A new empty folder under the system's temporary directory, for `use`, removed afterwards whatever happened. */
export async function inTempFolder<T>(prefix: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `cgw-${prefix}-`));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Strict mode as a client team's project would set it. The folder is a CommonJS package: two of the generators emit
 * relative imports without an extension, which Node's ES module loader does not resolve (under NodeNext, TypeScript
 * accepts them only in CommonJS files). DOM brings the fetch types the clients are written against; node's own types
 * come from this repository, as the folder has no node_modules of its own.
 */
export async function writeStrictProject(dir: string): Promise<void> {
  const compilerOptions = {
    strict: true,
    noEmit: false,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM'],
    skipLibCheck: true,
    rootDir: '.',
    outDir: 'out',
    typeRoots: [join(ROOT, 'node_modules/@types')],
    types: ['node'],
  };
  const tsconfig = { compilerOptions, include: ['**/*.ts'], exclude: ['out'] };
  await writeFile(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ private: true, type: 'commonjs' })}\n`);
}

/** Files by path relative to the folder. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
}

/** `tsc -p` on the folder's tsconfig.json. */
export function compile(dir: string): Promise<Run> {
  return runNode(TSC, ['-p', join(dir, 'tsconfig.json')], { cwd: dir });
}

/** The compiled `main.ts` of the folder (out/main.js), run against a gateway with a key in its environment. */
export function runProgram(dir: string, gateway: { baseUrl: string; apiKey: string }): Promise<Run> {
  return runNode(join(dir, 'out/main.js'), [], {
    cwd: dir,
    env: { GATEWAY_URL: gateway.baseUrl, GATEWAY_KEY: gateway.apiKey },
  });
}
