/**
 * The provider agent's client for the Docker Engine API (v1.43 wire format), over the daemon's unix socket or a
 * tcp address: pull an image, create a renter's container with its GPUs, a loopback-only SSH port and its persistent
 * volume, start, stop, inspect, list and remove it; create, list and remove named volumes. Only what the agent needs,
 * so no SDK: node:http speaks to the socket.
 *
 * Start and stop are idempotent (Docker answers 304 when there is nothing to do), so a reconciling loop can
 * repeat them. Every failure is a DockerError; a reference Docker would refuse throws ImageRegistryError
 * `invalid_reference` before anything is sent.
 */
import type { IncomingMessage } from 'node:http';
import { parseImageReference } from '../adapters/image-registry/index.js';
import { isRecord } from '../lib/is-record.js';
import {
  type DockerCall,
  type DockerEndpoint,
  DockerError,
  errorOf,
  jsonOf,
  parseDockerHost,
  readPullStream,
  sendDockerCall,
} from './docker-transport.js';

export {
  DOCKER_API_VERSION,
  type DockerEndpoint,
  DockerError,
  type DockerErrorKind,
  parseDockerHost,
} from './docker-transport.js';
export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';
/** The label that ties a container to its rental: what the agent lists to find its own containers. */
export const INSTANCE_LABEL = 'cgw.instance';
/** The label on the named volumes that hold renters' persistent volumes: what the agent lists to find its own. */
export const VOLUME_LABEL = 'cgw.volume';
/** Where a rental's persistent volume is mounted in its container (RunPod's convention). */
export const VOLUME_MOUNT_PATH = '/workspace';
/** The port of the SSH daemon inside a renter's container, reached through the gateway's SSH proxy (SPEC 4.5). */
export const SSH_CONTAINER_PORT = 22;

/** Docker's container states (ContainerState.Status in the API). */
export type DockerContainerState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';
const STATES: ReadonlySet<string> = new Set<DockerContainerState>([
  'created',
  'running',
  'paused',
  'restarting',
  'removing',
  'exited',
  'dead',
]);

export interface DockerEngineOptions {
  /** DOCKER_HOST syntax: `unix:///var/run/docker.sock` (default), a socket path, or `tcp://` / `http://host:port`. */
  host?: string;
  /**
   * Cap each container's writable layer at its rental's disk (StorageOpt size). Only some storage drivers can
   * (overlay2 on xfs mounted with pquota, btrfs, zfs); on others Docker refuses the create, so it is opt-in.
   */
  diskQuota?: boolean;
  /** The longest Docker may stay silent on a call, in ms (default 60 s); a pull resets it with every progress line. */
  timeoutMs?: number;
}

export interface CreateContainerInput {
  name: string;
  image: string;
  env?: Record<string, string>;
  labels?: Record<string, string>;
  /** NVML indexes (nvidia-smi's order) of the GPUs the rental holds; none: no GPU is passed in. */
  gpuIndexes?: number[];
  diskGb: number;
  /** Authorised keys, handed to the image's SSH setup as PUBLIC_KEY (one per line), RunPod's convention. */
  sshPublicKeys?: string[];
  /** The container port of the SSH daemon, published on a random loopback port. Default 22. */
  exposedPort?: number;
  /** A named volume mounted at VOLUME_MOUNT_PATH. */
  volume?: string;
}

export interface ContainerInspection {
  id: string;
  name: string;
  state: DockerContainerState;
  /** The exit code once the container has stopped; null before (Docker reports 0 then, which would mislead). */
  exitCode: number | null;
  /** The loopback port the SSH daemon is published on while the container runs; null otherwise. */
  sshHostPort: number | null;
  labels: Record<string, string>;
}

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
  state: DockerContainerState;
  sshHostPort: number | null;
  labels: Record<string, string>;
}

/** A call as the client makes it: the client's own timeout unless the call needs longer. */
type Call = Omit<DockerCall, 'timeoutMs'> & { timeoutMs?: number };

export class DockerEngine {
  private readonly endpoint: DockerEndpoint;
  private readonly diskQuota: boolean;
  private readonly timeoutMs: number;

  constructor(options: DockerEngineOptions = {}) {
    this.endpoint = parseDockerHost(options.host ?? DEFAULT_DOCKER_HOST);
    this.diskQuota = options.diskQuota ?? false;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** Pulls `image` (tag `latest` when it names none); resolves once Docker has it. */
  async pullImage(image: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const ref = parseImageReference(image);
    // Docker's own client sends a digest in `tag`; without a tag Docker would pull every tag of the repository.
    const query = { fromImage: `${ref.registry}/${ref.repository}`, tag: ref.digest ?? ref.tag ?? 'latest' };
    const res = await this.send({ method: 'POST', path: '/images/create', query, ...options });
    if (res.statusCode !== 200) throw await errorOf(res);
    const failure = await readPullStream(res);
    if (failure !== null) throw new DockerError('pull_failed', 200, failure);
  }

  /** Creates (does not start) a renter's container; returns its id. */
  async createContainer(input: CreateContainerInput): Promise<string> {
    const port = `${input.exposedPort ?? SSH_CONTAINER_PORT}/tcp`;
    const env = {
      ...input.env,
      ...(input.sshPublicKeys === undefined ? {} : { PUBLIC_KEY: input.sshPublicKeys.join('\n') }),
    };
    const gpus = input.gpuIndexes ?? [];
    const body = {
      Image: input.image,
      Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      Labels: input.labels ?? {},
      ExposedPorts: { [port]: {} },
      HostConfig: {
        // Loopback only, on a port Docker picks: renters reach it through the agent's SSH tunnel, never directly.
        PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
        ...(gpus.length === 0
          ? {}
          : { DeviceRequests: [{ Driver: 'nvidia', DeviceIDs: gpus.map(String), Capabilities: [['gpu']] }] }),
        ...(this.diskQuota ? { StorageOpt: { size: `${input.diskGb}G` } } : {}),
        ...(input.volume === undefined
          ? {}
          : { Mounts: [{ Type: 'volume', Source: input.volume, Target: VOLUME_MOUNT_PATH }] }),
      },
    };
    const res = await this.send({ method: 'POST', path: '/containers/create', query: { name: input.name }, body });
    const created = await jsonOf(res, 201);
    if (!isRecord(created) || typeof created['Id'] !== 'string') throw unexpected('/containers/create', created);
    return created['Id'];
  }

  async startContainer(id: string): Promise<void> {
    await this.expectEmpty({ method: 'POST', path: `/containers/${encodeURIComponent(id)}/start` });
  }

  /** SIGTERM, then SIGKILL after `timeoutSeconds`; Docker answers only once the container is down. */
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    const call = {
      method: 'POST',
      path: `/containers/${encodeURIComponent(id)}/stop`,
      query: { t: String(timeoutSeconds) },
    } as const;
    await this.expectEmpty({ ...call, timeoutMs: timeoutSeconds * 1000 + this.timeoutMs });
  }

  /** Removes the container; `volumes` also removes its anonymous volumes, which with the layer is the disk wipe. */
  async removeContainer(id: string, options: { volumes?: boolean; force?: boolean } = {}): Promise<void> {
    const query = { v: options.volumes === true ? '1' : '0', force: options.force === true ? '1' : '0' };
    await this.expectEmpty({ method: 'DELETE', path: `/containers/${encodeURIComponent(id)}`, query });
  }

  async inspectContainer(id: string): Promise<ContainerInspection> {
    const path = `/containers/${encodeURIComponent(id)}/json`;
    const c = await jsonOf(await this.send({ method: 'GET', path }), 200);
    if (!isRecord(c) || typeof c['Id'] !== 'string' || !isRecord(c['State']) || !isRecord(c['Config']))
      throw unexpected(path, c);
    const state = stateOf(c['State']['Status']);
    const exitCode = c['State']['ExitCode'];
    const ports = isRecord(c['NetworkSettings']) ? c['NetworkSettings']['Ports'] : undefined;
    return {
      id: c['Id'],
      name: typeof c['Name'] === 'string' ? c['Name'].replace(/^\//, '') : '',
      state,
      exitCode: (state === 'exited' || state === 'dead') && typeof exitCode === 'number' ? exitCode : null,
      sshHostPort: publishedPort(ports),
      labels: labelsOf(c['Config']['Labels']),
    };
  }

  /** Every container, running or not, that carries `label` (`key` or `key=value`). */
  async listContainers(options: { label: string } = { label: INSTANCE_LABEL }): Promise<ContainerSummary[]> {
    const query = { all: '1', filters: JSON.stringify({ label: [options.label] }) };
    const list = await jsonOf(await this.send({ method: 'GET', path: '/containers/json', query }), 200);
    if (!Array.isArray(list)) throw unexpected('/containers/json', list);
    return list.map((c: unknown) => {
      if (!isRecord(c) || typeof c['Id'] !== 'string') throw unexpected('/containers/json', c);
      const names = Array.isArray(c['Names']) ? (c['Names'] as unknown[]) : [];
      const ports = Array.isArray(c['Ports']) ? (c['Ports'] as unknown[]) : [];
      const published = ports.find((p) => isRecord(p) && typeof p['PublicPort'] === 'number');
      return {
        id: c['Id'],
        name: typeof names[0] === 'string' ? names[0].replace(/^\//, '') : '',
        image: typeof c['Image'] === 'string' ? c['Image'] : '',
        state: stateOf(c['State']),
        sshHostPort: isRecord(published) ? (published['PublicPort'] as number) : null,
        labels: labelsOf(c['Labels']),
      };
    });
  }

  /** Creates a named volume with labels; Docker answers an existing one of that name as it is. */
  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    const created = await jsonOf(
      await this.send({ method: 'POST', path: '/volumes/create', body: { Name: name, Labels: labels } }),
      201,
    );
    if (!isRecord(created) || created['Name'] !== name) throw unexpected('/volumes/create', created);
  }

  /** The names of the named volumes that carry `label` (`key` or `key=value`). */
  async listVolumes(label: string): Promise<string[]> {
    const listed = await jsonOf(
      await this.send({ method: 'GET', path: '/volumes', query: { filters: JSON.stringify({ label: [label] }) } }),
      200,
    );
    if (!isRecord(listed)) throw unexpected('/volumes', listed);
    const volumes = Array.isArray(listed['Volumes']) ? (listed['Volumes'] as unknown[]) : [];
    return volumes.flatMap((v) => (isRecord(v) && typeof v['Name'] === 'string' ? [v['Name']] : []));
  }

  /** Removes a named volume and its data; Docker refuses (409) while a container uses it. */
  async removeVolume(name: string): Promise<void> {
    await this.expectEmpty({ method: 'DELETE', path: `/volumes/${encodeURIComponent(name)}` });
  }

  /** 204, or 304 when it was already so. */
  private async expectEmpty(call: Call): Promise<void> {
    const res = await this.send(call);
    if (res.statusCode !== 204 && res.statusCode !== 304) throw await errorOf(res);
    res.resume();
  }

  private send(call: Call): Promise<IncomingMessage> {
    return sendDockerCall(this.endpoint, { ...call, timeoutMs: call.timeoutMs ?? this.timeoutMs });
  }
}

function stateOf(value: unknown): DockerContainerState {
  if (typeof value !== 'string' || !STATES.has(value))
    throw new DockerError('error', 200, `Docker reported an unknown container state: ${String(value)}`);
  return value as DockerContainerState;
}

function labelsOf(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * The host port of the one port the agent publishes (the SSH daemon's). Docker lists every exposed port of the
 * image too, with null bindings, and no bindings at all once the container has stopped.
 */
function publishedPort(ports: unknown): number | null {
  if (!isRecord(ports)) return null;
  for (const bindings of Object.values(ports)) {
    const first: unknown = Array.isArray(bindings) ? bindings[0] : undefined;
    if (isRecord(first) && typeof first['HostPort'] === 'string' && first['HostPort'] !== '')
      return Number(first['HostPort']);
  }
  return null;
}

function unexpected(path: string, body: unknown): DockerError {
  return new DockerError(
    'error',
    200,
    `unexpected answer from Docker to ${path}: ${JSON.stringify(body).slice(0, 200)}`,
  );
}
