/**
 * The provider agent (SPEC 1.6): registers its machine once (the id is kept in a state file), then heartbeats with
 * the state of the rental containers it runs and does what each answer assigns (pull, create and start; stop;
 * remove with its disk), and long-polls for SSH tunnels to open. Docker is the source of truth for what runs: every
 * rental container carries the `cgw.instance` label, so a restarted agent picks up where it was. Renters' persistent
 * volumes are named Docker volumes labelled `cgw.volume`, created on first use and removed once the gateway no longer
 * lists them (their renter deleted them).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Assignment, MachineRegistration } from '../../generated/client/types.gen.js';
import { type ContainerSummary, type DockerEngine, INSTANCE_LABEL, VOLUME_LABEL } from './docker-engine.js';
import type { Gateway } from './gateway.js';
import { openTunnel } from './tunnel.js';

export interface AgentOptions {
  gateway: Gateway;
  docker: DockerEngine;
  registration: MachineRegistration;
  /** Where the machine id is kept between runs. */
  statePath: string;
  heartbeatMs: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

type ReportedState = 'running' | 'exited' | 'failed';

const TUNNEL_WAIT_SECONDS = 25;
const RETRY_MS = 1_000;
const STOP_TIMEOUT_SECONDS = 10;

export class Agent {
  private machineId: string | null = null;
  private readonly abort = new AbortController();
  /** Rentals whose container could not be made: reported `failed` once, then forgotten. */
  private readonly failed = new Set<string>();
  /** Containers this agent stopped because their rental was stopped (kept in the state file): started again, not failures. */
  private stoppedOnRequest = new Set<string>();
  private loops: Promise<void>[] = [];
  /** Said once when Docker stops answering, and once when it is back, not at every heartbeat. */
  private dockerReachable = true;

  constructor(private readonly options: AgentOptions) {}

  get id(): string | null {
    return this.machineId;
  }

  /** Registers (or reads the machine id kept), then heartbeats and serves tunnels until `stop`. */
  async start(): Promise<string> {
    this.machineId = this.readState() ?? (await this.register());
    this.loops = [this.every(this.options.heartbeatMs, () => this.beat()), this.serveTunnels()];
    return this.machineId;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.loops);
  }

  private readState(): string | null {
    if (!existsSync(this.options.statePath)) return null;
    const state = JSON.parse(readFileSync(this.options.statePath, 'utf8')) as {
      machine_id?: string;
      stopped_on_request?: string[];
    };
    this.stoppedOnRequest = new Set(state.stopped_on_request ?? []);
    return state.machine_id ?? null;
  }

  private writeState(): void {
    mkdirSync(dirname(this.options.statePath), { recursive: true });
    writeFileSync(
      this.options.statePath,
      `${JSON.stringify({ machine_id: this.machineId, stopped_on_request: [...this.stoppedOnRequest] })}\n`,
    );
  }

  private async register(): Promise<string> {
    this.machineId = await this.options.gateway.register(this.options.registration);
    this.writeState();
    this.options.log('machine registered', { machine_id: this.machineId });
    return this.machineId;
  }

  /** One heartbeat: report every rental container, then carry out the answer. */
  async beat(): Promise<void> {
    const containers = await this.options.docker.listContainers({ label: INSTANCE_LABEL }).catch((err: unknown) => {
      if (this.dockerReachable) this.options.log('docker unreachable', { error: String(err) });
      return null;
    });
    if (containers !== null && !this.dockerReachable) this.options.log('docker reachable');
    this.dockerReachable = containers !== null;
    // Docker down does not take the machine offline, nor fail its rentals: it heartbeats and does nothing until back.
    if (containers === null) {
      await this.options.gateway.heartbeat(this.machineId!, []);
      return;
    }
    const report = containers.flatMap((c) => {
      const instanceId = c.labels[INSTANCE_LABEL]!;
      const state = reportedState(c, this.stoppedOnRequest.has(instanceId));
      return state === null ? [] : [{ instance_id: instanceId, state }];
    });
    for (const instanceId of this.failed) report.push({ instance_id: instanceId, state: 'failed' });
    this.failed.clear();
    const { assignments, volumes } = await this.options.gateway.heartbeat(this.machineId!, report);
    for (const assignment of assignments) {
      const container = containers.find((c) => c.labels[INSTANCE_LABEL] === assignment.instance_id);
      await this.carryOut(assignment, container).catch((err: unknown) => {
        this.options.log('assignment failed', { instance_id: assignment.instance_id, error: String(err) });
        if (assignment.desired_status === 'running') this.failed.add(assignment.instance_id);
      });
    }
    // Only an answer that lists the volumes to keep can say which to remove (an older gateway sends none).
    if (Array.isArray(volumes)) await this.removeDeletedVolumes(new Set(volumes));
  }

  /** Removes the persistent volumes the gateway no longer lists; one still in use is tried again next heartbeat. */
  private async removeDeletedVolumes(kept: ReadonlySet<string>): Promise<void> {
    const { docker, log } = this.options;
    for (const name of await docker.listVolumes(VOLUME_LABEL)) {
      if (kept.has(name)) continue;
      await docker.removeVolume(name).then(
        () => log('volume removed', { volume: name }),
        (err: unknown) => log('volume removal failed', { volume: name, error: String(err) }),
      );
    }
  }

  private async carryOut(assignment: Assignment, container: ContainerSummary | undefined): Promise<void> {
    const { docker } = this.options;
    const instanceId = assignment.instance_id;
    if (assignment.desired_status === 'terminated') {
      if (container !== undefined) await docker.removeContainer(container.id, { volumes: true, force: true });
      this.remember(instanceId, false);
      return;
    }
    if (assignment.desired_status === 'stopped') {
      if (container?.state === 'running') await docker.stopContainer(container.id, STOP_TIMEOUT_SECONDS);
      this.remember(instanceId, container !== undefined);
      return;
    }
    // Running wanted. A container that exited on its own was reported so (the gateway stops its rental): never
    // restarted; one this agent stopped on request is started again.
    if (container !== undefined && this.stoppedOnRequest.has(instanceId)) {
      if (container.state !== 'running') await docker.startContainer(container.id);
      this.remember(instanceId, false);
    } else if (container === undefined) {
      await docker.pullImage(assignment.docker_image);
      if (assignment.volume !== null) await docker.createVolume(assignment.volume, { [VOLUME_LABEL]: '1' });
      const id = await docker.createContainer({
        name: `cgw-${assignment.instance_id}`,
        image: assignment.docker_image,
        labels: { [INSTANCE_LABEL]: assignment.instance_id },
        gpuIndexes: assignment.gpu_indexes,
        diskGb: assignment.disk_gb,
        sshPublicKeys: assignment.ssh_public_keys,
        ...(assignment.volume === null ? {} : { volume: assignment.volume }),
      });
      await docker.startContainer(id);
      this.options.log('container started', { instance_id: assignment.instance_id });
    } else if (container.state === 'created') {
      await docker.startContainer(container.id);
    }
  }

  private remember(instanceId: string, stoppedOnRequest: boolean): void {
    if (this.stoppedOnRequest.has(instanceId) === stoppedOnRequest) return;
    if (stoppedOnRequest) this.stoppedOnRequest.add(instanceId);
    else this.stoppedOnRequest.delete(instanceId);
    this.writeState();
  }

  /** The tunnel long poll: each connection asked for is piped to its container's SSH port. */
  private async serveTunnels(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const order = await this.options.gateway.waitForTunnels(
          this.machineId!,
          TUNNEL_WAIT_SECONDS,
          this.abort.signal,
        );
        if (order.connections.length === 0) continue;
        const containers = await this.options.docker.listContainers({ label: INSTANCE_LABEL });
        for (const connection of order.connections) {
          const port = containers.find((c) => c.labels[INSTANCE_LABEL] === connection.instance_id)?.sshHostPort ?? null;
          if (port === null) continue; // the client is dropped when its wait ends
          openTunnel(connection.tunnel, connection.token, port).catch((err: unknown) =>
            this.options.log('tunnel failed', { instance_id: connection.instance_id, error: String(err) }),
          );
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.options.log('tunnel wait failed', { error: String(err) });
        await this.sleep(RETRY_MS);
      }
    }
  }

  /** Runs `task` now and every `ms` after it ends; a failure is logged and the next run goes on. */
  private async every(ms: number, task: () => Promise<void>): Promise<void> {
    while (!this.abort.signal.aborted) {
      await task().catch((err: unknown) => this.options.log('heartbeat failed', { error: String(err) }));
      await this.sleep(ms);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}

/**
 * What the gateway hears about a container: created ones are not running yet; one this agent stopped on request
 * `exited`; one that stopped on its own `failed` (its rental is stopped with reason `error`).
 */
function reportedState(c: ContainerSummary, stoppedOnRequest: boolean): ReportedState | null {
  if (c.state === 'running') return 'running';
  if (c.state === 'exited' || c.state === 'dead') return stoppedOnRequest ? 'exited' : 'failed';
  return null;
}
