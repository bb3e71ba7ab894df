/**
 * The tunnel-store port (SPEC 4.5 `ssh-proxy/ensure`): the SSH proxy's port of each rental asked to run, unique
 * across gateway processes, and the client connections waiting for a machine's agent to open a
 * tunnel back to the proxy (claimed once, by one agent call).
 */

export interface PortRange {
  first: number;
  last: number;
}

export interface TunnelRequest {
  token: string;
  machineId: string;
  instanceId: string;
  /** The tunnel port of the proxy process holding the client: the agent dials there, whichever process it asked. */
  tunnel: { host: string; port: number };
  createdAtMs: number;
}

export interface TunnelStore {
  /** The rental's port: the one it has, else the lowest free one of the range; null when the range is full. */
  allocate(instanceId: string, range: PortRange, nowMs: number): Promise<number | null>;
  portOf(instanceId: string): Promise<number | null>;
  release(instanceId: string): Promise<void>;
  /** Every allocated port with its rental (what each proxy process listens on). */
  ports(): Promise<{ port: number; instanceId: string }[]>;
  /** A client connected to a rental's port: the machine's agent is to open a tunnel for `token`. */
  request(request: TunnelRequest): Promise<void>;
  /** A machine's waiting requests made at or after `sinceMs`, oldest first, each handed out once. */
  claim(machineId: string, sinceMs: number): Promise<TunnelRequest[]>;
  /** Drops requests made before `beforeMs` (their clients have given up). */
  expire(beforeMs: number): Promise<number>;
}
