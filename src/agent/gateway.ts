/**
 * The agent's calls to the gateway, through the SDK generated from the contract (generated/client): registering
 * its machine, heartbeats with container states, and the long poll for SSH tunnels.
 */
import { type Client, createClient } from '../../generated/client/client/index.js';
import { machineHeartbeat, registerMachine, waitForTunnels } from '../../generated/client/sdk.gen.js';
import type { Heartbeat, MachineHeartbeatResponse, MachineRegistration } from '../../generated/client/types.gen.js';

export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export interface TunnelOrder {
  connections: { token: string; instance_id: string; tunnel: { host: string; port: number } }[];
}

/** The answer of a call, or a GatewayError with the native envelope's code (SPEC 2.7). */
function unwrap<T>(result: { data?: { data: T }; error?: unknown; response?: Response }): T {
  if (result.data !== undefined) return result.data.data;
  const body = result.error as { data?: { error_code?: string; error?: string } } | undefined;
  throw new GatewayError(
    result.response?.status ?? 0,
    body?.data?.error_code ?? 'unreachable',
    body?.data?.error ?? 'the gateway did not answer',
  );
}

export class Gateway {
  private readonly client: Client;

  constructor(baseUrl: string, apiKey: string) {
    this.client = createClient({ baseUrl, auth: () => apiKey });
  }

  async register(machine: MachineRegistration): Promise<string> {
    return unwrap(await registerMachine({ client: this.client, body: machine })).machine_id;
  }

  /** What to do with each container, and the Docker volumes the machine keeps. */
  async heartbeat(
    machineId: string,
    containers: NonNullable<Heartbeat['containers']>,
  ): Promise<MachineHeartbeatResponse['data']> {
    return unwrap(
      await machineHeartbeat({ client: this.client, path: { machine_id: machineId }, body: { containers } }),
    );
  }

  async waitForTunnels(machineId: string, waitSeconds: number, signal: AbortSignal): Promise<TunnelOrder> {
    return unwrap(
      await waitForTunnels({
        client: this.client,
        path: { machine_id: machineId },
        query: { wait_seconds: waitSeconds },
        signal,
      }),
    );
  }
}
