/**
 * A workspace package as its users get it: `npm pack`, then `npm install <tarball>` into an empty project. The
 * package must be built first (`make packages`; `make test` does it); a missing build fails here, by name.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO = resolve(import.meta.dirname, '..', '..');

export interface PackedProject {
  dir: string;
  tarball: string;
  /** The files the tarball holds, as `npm pack --dry-run --json` lists them. */
  files: string[];
}

export async function packAndInstall(workspace: string, extraFiles: Record<string, string>): Promise<PackedProject> {
  const source = join(REPO, 'packages', workspace);
  if (!existsSync(join(source, 'dist'))) throw new Error(`packages/${workspace}/dist is missing: run make packages`);
  const dir = mkdtempSync(join(tmpdir(), `cgw-${workspace}-consumer-`));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: source });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  const tarball = join(dir, packed!.filename);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(dir, name), text);
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], {
    cwd: dir,
    timeout: 240_000,
  });
  return { dir, tarball, files: packed!.files.map((f) => f.path) };
}

export const listInstalled = (project: PackedProject, name: string) =>
  readdirSync(join(project.dir, 'node_modules', ...name.split('/')));

export { run };
