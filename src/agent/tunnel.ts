/**
 * One SSH tunnel (SPEC 4.5): the agent dials the gateway's tunnel port, greets it with the client's token, and
 * pipes the connection to the container's SSH daemon on its loopback port. The machine needs no inbound port.
 */

import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { TUNNEL_GREETING } from '../adapters/ssh-proxy/tcp-listeners.js';

async function dial(host: string, port: number): Promise<Socket> {
  const socket = connect({ host, port });
  socket.on('error', () => undefined);
  await Promise.race([once(socket, 'connect'), once(socket, 'error').then(([err]) => Promise.reject(err as Error))]);
  return socket;
}

export async function openTunnel(
  gateway: { host: string; port: number },
  token: string,
  sshPort: number,
): Promise<void> {
  const ssh = await dial('127.0.0.1', sshPort);
  let upstream: Socket;
  try {
    upstream = await dial(gateway.host, gateway.port);
  } catch (err) {
    ssh.destroy();
    throw err;
  }
  upstream.write(`${TUNNEL_GREETING} ${token}\n`);
  upstream.pipe(ssh).pipe(upstream);
  const end = () => {
    upstream.destroy();
    ssh.destroy();
  };
  upstream.once('close', end);
  ssh.once('close', end);
}
