/**
 * The SSH proxy's byte plumbing (SPEC 4.5): a client on a rental's port is held until the machine's agent dials
 * the tunnel port back with the client's token, then the two sockets are joined. Which port belongs to which
 * running rental, and asking the agent for its tunnel, are the domain's (domain/market/ssh-proxy.ts), reached
 * through {@link TunnelBroker} so this adapter imports no domain code.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';

/** The rental a proxy port serves, as far as the joiner needs it. */
export interface TunnelTarget {
  id: string;
  machineId: string;
}

export interface TunnelBroker {
  /** The running rental behind a proxy port, or null (the client is refused). */
  runningInstanceAt(port: number): Promise<TunnelTarget | null>;
  /** Asks the rental's agent to dial back with `token`. */
  requestTunnel(token: string, instance: TunnelTarget): Promise<void>;
}

export class TunnelJoiner {
  private readonly pending = new Map<string, { socket: Socket; timer: NodeJS.Timeout }>();

  /** `connectTimeoutMs`: how long a client waits for its tunnel. */
  constructor(
    private readonly broker: TunnelBroker,
    private readonly connectTimeoutMs: number,
  ) {}

  /** A client on a rental's port: held until the agent's tunnel arrives, refused when the rental is not running. */
  async clientConnected(port: number, socket: Socket): Promise<void> {
    socket.on('error', () => undefined);
    const instance = await this.broker.runningInstanceAt(port);
    if (instance === null) return void socket.destroy();
    const token = randomBytes(18).toString('base64url');
    const timer = setTimeout(() => {
      this.pending.delete(token);
      socket.destroy();
    }, this.connectTimeoutMs);
    this.pending.set(token, { socket, timer });
    socket.once('close', () => {
      clearTimeout(timer);
      this.pending.delete(token);
    });
    await this.broker.requestTunnel(token, instance);
  }

  /** The agent's tunnel for `token`: joined to the waiting client, bytes both ways until either side closes. */
  tunnelArrived(token: string, agent: Socket, rest: Buffer): void {
    agent.on('error', () => undefined);
    const waiting = this.pending.get(token);
    if (waiting === undefined) return void agent.destroy();
    this.pending.delete(token);
    clearTimeout(waiting.timer);
    if (rest.length > 0) waiting.socket.write(rest);
    agent.pipe(waiting.socket).pipe(agent);
    const end = () => {
      agent.destroy();
      waiting.socket.destroy();
    };
    agent.once('close', end);
    waiting.socket.once('close', end);
  }

  /** Closes the clients still waiting (shutdown). */
  close(): void {
    for (const { socket, timer } of this.pending.values()) {
      clearTimeout(timer);
      socket.destroy();
    }
    this.pending.clear();
  }
}
