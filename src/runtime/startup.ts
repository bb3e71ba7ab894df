import { createServer } from 'node:net';

/**
 * A setting that stops the start. Its message is one line naming the setting and what is wrong with it; main.ts
 * prints it, without a stack, and exits 2 (issue 24: an operator fixes a setting, there is no bug to trace).
 */
export class StartupError extends Error {
  constructor(setting: string, problem: string) {
    super(`${setting}: ${oneLine(problem)}`);
    this.name = 'StartupError';
  }
}

/** The exit code of a start stopped by a setting, as for a command-line usage mistake. */
export const STARTUP_ERROR_EXIT = 2;

function oneLine(text: string): string {
  return text
    .trim()
    .replace(/:\s*\n\s*/g, ': ')
    .replace(/\s*\n\s*/g, '; ');
}

/**
 * Runs a start-up step that reads what `setting` names (a file, a database): whatever it throws is that
 * setting's fault, said with the value (`shown`, credentials already taken out).
 */
export async function blameSetting<T>(setting: string, shown: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new StartupError(setting, reason.includes(shown) ? reason : `${shown}: ${reason}`);
  }
}

/** A database URL fit to print: its password left out. */
export function redactedUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/**
 * Whether this process can listen on HOST:PORT, asked before the slow set-up (catalog checks, migrations) so a
 * port in use is said at once rather than after it. The real listen still reports a port taken meanwhile.
 */
export async function checkListenable(host: string, port: number): Promise<void> {
  if (port === 0) return; // any free port
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, host, port)));
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise((resolve) => probe.close(resolve));
}

/** The setting to blame for a listen that failed: the port for one in use or privileged, else the address. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  if (err.code === 'EADDRINUSE')
    return new StartupError(
      'PORT',
      `${port} is already in use on ${host} (another process listens there; stop it or choose another PORT)`,
    );
  if (err.code === 'EACCES')
    return new StartupError(
      'PORT',
      `${port} needs privileges this process lacks on ${host} (choose a port above 1023)`,
    );
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return new StartupError('HOST', `cannot listen on ${host} (${err.code}: not an address of this machine)`);
  return err;
}
