/**
 * `ssh <id>`: a shell on a rented instance through the gateway's SSH proxy (SPEC: POST
 * /v1/instances/{id}/ssh-proxy/ensure allocates the proxy port on demand). The key is the one registered in the
 * account's SSH keys; `--print` prints the command for use elsewhere (scp, an IDE).
 */
import { spawn } from 'node:child_process';
import { ensureSshProxy, GatewayError } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { context } from '../context.js';
import { printJson, printLine } from '../output.js';

interface SshOptions {
  user: string;
  print?: boolean;
  identity?: string;
}

async function ssh(id: string, extra: string[], options: SshOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(ensureSshProxy, { path: { id } });
  if (data.ssh_host === null || data.ssh_port === null) {
    throw new GatewayError({
      status: 409,
      code: 'ssh_unavailable',
      message: `instance ${id} has no SSH proxy yet (status ${data.status}); try again when it is running`,
      retryable: true,
    });
  }
  const args = [
    '-p',
    String(data.ssh_port),
    ...(options.identity ? ['-i', options.identity] : []),
    `${options.user}@${data.ssh_host}`,
    ...extra,
  ];
  if (ctx.json)
    return printJson({ host: data.ssh_host, port: data.ssh_port, user: options.user, command: ['ssh', ...args] });
  if (options.print === true) return printLine(['ssh', ...args].join(' '));
  // ssh owns the terminal from here; its exit code becomes ours.
  const child = spawn('ssh', args, { stdio: 'inherit' });
  process.exitCode = await new Promise<number>((done, fail) => {
    child.on('error', fail);
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

export function registerSsh(root: Command): void {
  root
    .command('ssh <id>')
    .description('open a shell on an instance through the SSH proxy (runs ssh -p <port> <user>@<host>)')
    .argument('[command...]', 'a command to run instead of a shell')
    .option('--user <name>', 'the login on the instance', 'root')
    .option('-i, --identity <file>', 'the private key to use')
    .option('--print', 'print the ssh command instead of running it')
    .action(ssh);
}
