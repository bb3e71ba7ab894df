import type { PortRange, TunnelRequest, TunnelStore } from './index.js';

/** The in-memory twin of the tunnel store. */
export class MemoryTunnelStore implements TunnelStore {
  private readonly byPort = new Map<number, string>();
  private readonly requests = new Map<string, TunnelRequest>();

  async allocate(instanceId: string, range: PortRange): Promise<number | null> {
    const held = await this.portOf(instanceId);
    if (held !== null) return held;
    for (let port = range.first; port <= range.last; port++) {
      if (!this.byPort.has(port)) {
        this.byPort.set(port, instanceId);
        return port;
      }
    }
    return null;
  }

  async portOf(instanceId: string): Promise<number | null> {
    for (const [port, holder] of this.byPort) if (holder === instanceId) return port;
    return null;
  }

  async release(instanceId: string): Promise<void> {
    for (const [port, holder] of this.byPort) if (holder === instanceId) this.byPort.delete(port);
  }

  async ports(): Promise<{ port: number; instanceId: string }[]> {
    return [...this.byPort].map(([port, instanceId]) => ({ port, instanceId })).sort((a, b) => a.port - b.port);
  }

  async request(request: TunnelRequest): Promise<void> {
    this.requests.set(request.token, { ...request, tunnel: { ...request.tunnel } });
  }

  async claim(machineId: string, sinceMs: number): Promise<TunnelRequest[]> {
    const mine = [...this.requests.values()]
      .filter((r) => r.machineId === machineId && r.createdAtMs >= sinceMs)
      .sort((a, b) => a.createdAtMs - b.createdAtMs);
    for (const r of mine) this.requests.delete(r.token);
    return mine;
  }

  async expire(beforeMs: number): Promise<number> {
    let n = 0;
    for (const [token, r] of this.requests) if (r.createdAtMs < beforeMs && this.requests.delete(token)) n++;
    return n;
  }
}
