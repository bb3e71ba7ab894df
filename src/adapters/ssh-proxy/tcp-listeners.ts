/**
 * The SSH proxy's sockets (SPEC 4.5): one TCP listener per rental port, handing each client connection to the
 * proxy; and the tunnel listener agents dial back to, whose first line names the client the tunnel is for.
 */

import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';

/** Listens on rental ports as they are allocated; a port another process already holds is left to it. */
export class PortListeners {
  private readonly servers = new Map<number, Server>();

  constructor(
    private readonly bindHost: string,
    private readonly onConnection: (port: number, socket: Socket) => void,
    private readonly onError: (port: number, err: unknown) => void,
  ) {}

  listening(): number[] {
    return [...this.servers.keys()];
  }

  async open(port: number): Promise<boolean> {
    if (this.servers.has(port)) return true;
    const server = createServer((socket) => this.onConnection(port, socket));
    this.servers.set(port, server);
    try {
      server.listen(port, this.bindHost);
      await once(server, 'listening');
      return true;
    } catch (err) {
      this.servers.delete(port);
      this.onError(port, err);
      return false;
    }
  }

  async close(port: number): Promise<void> {
    const server = this.servers.get(port);
    if (server === undefined) return;
    this.servers.delete(port);
    server.close();
    server.unref();
  }

  async closeAll(): Promise<void> {
    for (const port of this.listening()) await this.close(port);
  }
}

/** The first line an agent sends on a tunnel connection: `CGW-TUNNEL <token>`. */
export const TUNNEL_GREETING = 'CGW-TUNNEL';
const MAX_GREETING_BYTES = 256;

/** Accepts agents' tunnel connections and hands each, once greeted, to `onTunnel` with what followed the greeting. */
export class TunnelListener {
  private server: Server | null = null;

  constructor(private readonly onTunnel: (token: string, socket: Socket, rest: Buffer) => void) {}

  async listen(port: number, host: string): Promise<number> {
    const server = createServer((socket) => this.greet(socket));
    server.listen(port, host);
    await once(server, 'listening');
    this.server = server;
    return (server.address() as { port: number }).port;
  }

  private greet(socket: Socket): void {
    let buffered = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), 10_000);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(0x0a);
      if (end === -1) {
        if (buffered.length > MAX_GREETING_BYTES) socket.destroy();
        return;
      }
      socket.off('data', onData);
      clearTimeout(timer);
      const [word, token] = buffered.subarray(0, end).toString('utf8').trim().split(' ');
      if (word !== TUNNEL_GREETING || token === undefined) return void socket.destroy();
      this.onTunnel(token, socket, buffered.subarray(end + 1));
    };
    socket.on('data', onData);
    socket.on('error', () => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.server?.close();
    this.server?.unref();
    this.server = null;
  }
}
