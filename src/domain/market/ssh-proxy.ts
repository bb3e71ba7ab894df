/**
 * The SSH proxy (SPEC 4.5 `POST /v1/instances/{id}/ssh-proxy/ensure`): every rental asked to run (pending, running,
 * offline) holds a port on the proxy host (`ssh_host`:`ssh_port`), unique across gateway processes through the
 * database; a stopped or deleted one gives it back, and starting it takes one again (issue rule "scarce resources
 * cost something or expire": a rental no longer asked to run keeps no port, and one never run or long offline is
 * stopped by the rental sweeper). A client
 * connecting to that port is held while the machine's agent, told through its tunnel wait, dials the tunnel port
 * back with the client's token and pipes it to the container's SSH daemon; the adapter's TunnelJoiner
 * (adapters/ssh-proxy/tunnel-joiner.ts) then joins the two sockets: the domain holds no socket.
 * Machines need no inbound port: only the agent connects out.
 */
import type { InstanceRecord, MarketStore } from '../../adapters/market-store/index.js';
import type { PortRange, TunnelRequest, TunnelStore } from '../../adapters/tunnel-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import type { Principal } from '../keys/authenticator.js';

export interface SshProxySettings {
  /** The name renters connect to. */
  publicHost: string;
  range: PortRange;
  /** Where agents dial back (told to them with each request); the port is the one the tunnel listener got. */
  tunnelHost: string;
  tunnelPort: number;
  /** How long a client waits for its tunnel. */
  connectTimeoutMs: number;
}

/** The proxy's own sockets, as the adapter opens them. */
export interface ProxySockets {
  open(port: number): Promise<boolean>;
  close(port: number): Promise<void>;
  listening(): number[];
}

export interface SshProxyDeps {
  tunnels: TunnelStore;
  store: MarketStore;
  now: () => number;
  settings: SshProxySettings;
  onUnexpected: (err: unknown) => void;
}

const CHANGE_ATTEMPTS = 8;
const WAIT_STEP_MS = 200;

export class SshProxy {
  private sockets: ProxySockets | null = null;
  private readonly instanceByPort = new Map<number, string>();

  constructor(private readonly deps: SshProxyDeps) {}

  /** Mutable: the tunnel port is known once its listener is up (`TUNNEL_PORT=0` takes any free one). */
  get settings(): SshProxySettings {
    return this.deps.settings;
  }

  /** Serves the proxy ports from this process (a process without sockets only allocates and answers agents). */
  attach(sockets: ProxySockets): void {
    this.sockets = sockets;
  }

  /**
   * SPEC 4.5: the port of a rental asked to run, allocated now if it has none (idempotent); 409 for a stopped
   * (`instance_not_running`) or deleted one, 503 when the range is used up.
   */
  async ensure(principal: Principal, instanceId: string): Promise<InstanceRecord> {
    const instance = await this.deps.store.getInstance(instanceId);
    if (instance === null || instance.accountId !== principal.accountId)
      throw new ApiError('instance_not_found', `No instance ${instanceId}`, { notFound: true });
    if (instance.desiredStatus === 'terminated')
      throw new ApiError('instance_terminated', `Instance ${instanceId} was deleted`);
    if (instance.desiredStatus !== 'running')
      throw new ApiError(
        'instance_not_running',
        `Instance ${instanceId} is stopped: its SSH port was given back; start it to get one again`,
      );
    const allocated = await this.allocate(instance);
    if (allocated === null)
      throw new ApiError('provider_unavailable', 'Every SSH proxy port is in use; retry later', {
        meta: { hint: 'Ports come back as rentals are stopped and deleted' },
      });
    return allocated;
  }

  /**
   * Right after the API placed, started, stopped or deleted a rental: a rental asked to run gets a port, any other
   * gives its own back. A failure is left to `ensure` (the spec's "older orders whose allocation failed") and `sync`.
   */
  async fit(instance: InstanceRecord): Promise<InstanceRecord> {
    try {
      if (instance.desiredStatus === 'running') return (await this.allocate(instance)) ?? instance;
      return (await this.giveBack(instance.id)) ?? instance;
    } catch (err) {
      this.deps.onUnexpected(err);
      return instance;
    }
  }

  private async allocate(instance: InstanceRecord): Promise<InstanceRecord | null> {
    const port = await this.deps.tunnels.allocate(instance.id, this.deps.settings.range, this.deps.now());
    if (port === null) return null;
    const current = (await this.recordPort(instance, port)) ?? instance;
    await this.listenOn(port, current.id);
    return current;
  }

  /** Frees the rental's port for others and clears it from the rental (null when the rental is gone). */
  private async giveBack(instanceId: string): Promise<InstanceRecord | null> {
    await this.deps.tunnels.release(instanceId);
    const instance = await this.deps.store.getInstance(instanceId);
    return instance === null ? null : this.recordPort(instance, null);
  }

  /** Writes the rental's port by compare-and-set, re-reading on a concurrent change. */
  private async recordPort(instance: InstanceRecord, port: number | null): Promise<InstanceRecord | null> {
    let current: InstanceRecord | null = instance;
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS && current !== null && current.sshPort !== port; attempt++) {
      const changed = await this.deps.store.change(current.id, current.version, { patch: { sshPort: port } });
      current = changed.ok ? changed.instance : await this.deps.store.getInstance(current.id);
    }
    return current;
  }

  private async listenOn(port: number, instanceId: string): Promise<void> {
    this.instanceByPort.set(port, instanceId);
    if (this.sockets !== null) await this.sockets.open(port);
  }

  /**
   * Brings this process's listeners in line with the database (ports allocated by other processes; rentals no longer
   * asked to run, whoever stopped them (the sweeper, the agent, a pending rental's timeout): their ports are given
   * back and closed), and drops tunnel requests nobody claimed.
   */
  async sync(): Promise<void> {
    const allocated = await this.deps.tunnels.ports();
    const rentals = await this.deps.store.instancesAskedToRun(allocated.map((a) => a.instanceId));
    const live = new Set<number>();
    for (const { port, instanceId } of allocated) {
      if (!rentals.has(instanceId)) {
        await this.giveBack(instanceId);
        continue;
      }
      live.add(port);
      if (
        this.instanceByPort.get(port) !== instanceId ||
        (this.sockets !== null && !this.sockets.listening().includes(port))
      )
        await this.listenOn(port, instanceId);
    }
    for (const port of [...this.instanceByPort.keys()]) {
      if (live.has(port)) continue;
      this.instanceByPort.delete(port);
      await this.sockets?.close(port);
    }
    await this.deps.tunnels.expire(this.deps.now() - this.deps.settings.connectTimeoutMs);
  }

  /** The running rental behind a proxy port, or null: a client on any other port is refused (SPEC 4.5). */
  async runningInstanceAt(port: number): Promise<InstanceRecord | null> {
    const instanceId = this.instanceByPort.get(port);
    const instance = instanceId === undefined ? null : await this.deps.store.getInstance(instanceId);
    return instance?.status === 'running' ? instance : null;
  }

  /** Asks the rental's agent, through its tunnel wait, to dial the tunnel port back with `token`. */
  async requestTunnel(token: string, instance: InstanceRecord): Promise<void> {
    const { tunnelHost, tunnelPort } = this.deps.settings;
    await this.deps.tunnels.request({
      token,
      machineId: instance.machineId,
      instanceId: instance.id,
      tunnel: { host: tunnelHost, port: tunnelPort },
      createdAtMs: this.deps.now(),
    });
  }

  /**
   * The agent's long poll: the tunnels its machine must open, as soon as one is asked for, or none after `waitMs`.
   * Requests older than a client waits are not handed out.
   */
  async waitForTunnels(machineId: string, waitMs: number, signal: CancelSignal): Promise<TunnelRequest[]> {
    const until = performance.now() + waitMs; // the wait is wall time, whatever the service's clock says
    for (;;) {
      const claimed = await this.deps.tunnels.claim(machineId, this.deps.now() - this.deps.settings.connectTimeoutMs);
      if (claimed.length > 0 || performance.now() >= until || signal.aborted) return claimed;
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }
}
