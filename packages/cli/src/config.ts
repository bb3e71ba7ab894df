/**
 * Where `cgw` keeps its profiles (DESIGN.md 12: the key stored 0600 under the XDG config dir):
 * `$XDG_CONFIG_HOME/cgw/config.json`, else `~/.config/cgw/config.json`, as `{ profiles: { <name>: { base_url,
 * api_key } } }`. The directory is 0700 and the file 0600 because the file holds keys that spend money (SPEC 5.1).
 * `CGW_API_KEY` and `CGW_BASE_URL` override the profile, so scripts and CI need no file at all.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultBaseUrl } from '@compute-gateway/sdk';

export interface Profile {
  base_url?: string;
  api_key?: string;
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CONFIG_HOME'];
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg?.startsWith('/') ? xdg : join(homedir(), '.config');
  return join(base, 'cgw', 'config.json');
}

export async function readConfig(path = configPath()): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { profiles: parsed.profiles ?? {} };
}

/** Written to a temporary file (created 0600) and renamed, so a crash never leaves half a file or a readable key. */
export async function writeConfig(config: ConfigFile, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await chmod(dirname(path), 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export async function saveProfile(name: string, profile: Profile): Promise<string> {
  const path = configPath();
  const config = await readConfig(path);
  config.profiles[name] = profile;
  await writeConfig(config, path);
  return path;
}

/** Answers whether the profile existed. */
export async function removeProfile(name: string): Promise<boolean> {
  const path = configPath();
  const config = await readConfig(path);
  if (!(name in config.profiles)) return false;
  delete config.profiles[name];
  await writeConfig(config, path);
  return true;
}

export interface Resolved {
  profile: string;
  baseUrl: string;
  apiKey: string | undefined;
}

/** The profile named by `--profile`, else `CGW_PROFILE`, else `default`; the environment wins over the file. */
export async function resolveProfile(options: { profile?: string; baseUrl?: string }): Promise<Resolved> {
  const profile = options.profile ?? process.env['CGW_PROFILE'] ?? 'default';
  const stored = (await readConfig()).profiles[profile] ?? {};
  return {
    profile,
    baseUrl: options.baseUrl ?? process.env['CGW_BASE_URL'] ?? stored.base_url ?? defaultBaseUrl(),
    apiKey: process.env['CGW_API_KEY'] ?? stored.api_key,
  };
}
