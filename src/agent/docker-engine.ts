/**
 * The provider agent's client for the Docker Engine, on dockerode: pull an image, create a renter's container with
 * its GPUs, a loopback-only SSH port and its persistent volume, start, stop, inspect, list and remove it; create,
 * list and remove named volumes.
 *
 * Where the daemon is and how to reach it is docker-modem's reading of the docker CLI's variables (DOCKER_HOST as a
 * unix socket, tcp:// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, or ssh://user@host; src/agent/README.md). No API
 * version is pinned, as dockerode does by default: the engine answers in its own, and a pinned version stops
 * working once newer engines drop it from their supported range.
 *
 * Start and stop are idempotent (Docker answers 304 when there is nothing to do), so a reconciling loop can
 * repeat them. Every failure is a DockerError; a reference Docker would refuse throws ImageRegistryError
 * `invalid_reference` before anything is sent.
 */
import Docker from 'dockerode';
import { parseImageReference } from '../adapters/image-registry/reference.js';
import { isRecord } from '../lib/is-record.js';
import { DockerError, dockerErrorOf, doneAlready, pullFailureOf } from './docker-error.js';

export { DockerError, type DockerErrorKind } from './docker-error.js';
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
  /**
   * Where the daemon listens, as dockerode takes it (`{ socketPath }`, `{ host, port, protocol }`); by default
   * docker-modem reads DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, else the local socket.
   */
  connection?: Docker.DockerOptions;
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

export class DockerEngine {
  private readonly docker: Docker;
  private readonly diskQuota: boolean;
  private readonly timeoutMs: number;

  constructor(options: DockerEngineOptions = {}) {
    this.docker = new Docker(options.connection);
    this.diskQuota = options.diskQuota ?? false;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** Pulls `image` (tag `latest` when it names none); resolves once Docker has it. */
  async pullImage(image: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const ref = parseImageReference(image);
    // Docker's own client sends a digest in `tag`; without a tag Docker would pull every tag of the repository.
    const query = { fromImage: `${ref.registry}/${ref.repository}`, tag: ref.digest ?? ref.tag ?? 'latest' };
    await this.call(
      `the pull of ${image}`,
      async (signal, alive) => {
        const progress = await this.docker.createImage({ ...query, abortSignal: signal });
        const events = await new Promise<unknown[]>((resolve, reject) =>
          this.docker.modem.followProgress(progress, (err, all) => (err ? reject(err) : resolve(all)), alive),
        );
        const failure = pullFailureOf(events);
        if (failure !== null) throw new DockerError('pull_failed', 200, failure);
      },
      options,
    );
  }

  /** Creates (does not start) a renter's container; returns its id. */
  async createContainer(input: CreateContainerInput): Promise<string> {
    const body = this.containerConfigOf(input);
    // docker-modem sends a POST's options as query and body alike unless split: the env (tokens, keys) must not
    // travel in the URL, which proxies and the daemon's debug log record.
    const split = { _query: { name: input.name }, _body: body } as Docker.ContainerCreateOptions;
    const created = await this.call('the container create', (abortSignal) =>
      this.docker.createContainer({ ...split, abortSignal }),
    );
    return created.id;
  }

  async startContainer(id: string): Promise<void> {
    await this.call(`the start of ${id}`, (abortSignal) =>
      this.docker.getContainer(id).start({ abortSignal }).catch(doneAlready),
    );
  }

  /** SIGTERM, then SIGKILL after `timeoutSeconds`; Docker answers only once the container is down. */
  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    await this.call(
      `the stop of ${id}`,
      (abortSignal) => this.docker.getContainer(id).stop({ t: timeoutSeconds, abortSignal }).catch(doneAlready),
      { timeoutMs: timeoutSeconds * 1000 + this.timeoutMs },
    );
  }

  /** Removes the container; `volumes` also removes its anonymous volumes, which with the layer is the disk wipe. */
  async removeContainer(id: string, options: { volumes?: boolean; force?: boolean } = {}): Promise<void> {
    const query = { v: options.volumes === true, force: options.force === true };
    await this.call(`the removal of ${id}`, (abortSignal) =>
      this.docker.getContainer(id).remove({ ...query, abortSignal }),
    );
  }

  async inspectContainer(id: string): Promise<ContainerInspection> {
    const c = await this.call(`the inspection of ${id}`, (abortSignal) =>
      this.docker.getContainer(id).inspect({ abortSignal }),
    );
    const state = stateOf(c.State.Status);
    return {
      id: c.Id,
      name: c.Name.replace(/^\//, ''),
      state,
      exitCode: state === 'exited' || state === 'dead' ? c.State.ExitCode : null,
      sshHostPort: publishedPort(c.NetworkSettings.Ports),
      labels: c.Config.Labels ?? {},
    };
  }

  /** Every container, running or not, that carries `label` (`key` or `key=value`). */
  async listContainers(options: { label: string } = { label: INSTANCE_LABEL }): Promise<ContainerSummary[]> {
    const list = await this.call('the container list', (abortSignal) =>
      this.docker.listContainers({ all: true, filters: { label: [options.label] }, abortSignal }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: c.Names[0]?.replace(/^\//, '') ?? '',
      image: c.Image,
      state: stateOf(c.State),
      sshHostPort: c.Ports.find((p) => typeof p.PublicPort === 'number')?.PublicPort ?? null,
      labels: c.Labels ?? {},
    }));
  }

  /** Creates a named volume with labels; Docker answers an existing one of that name as it is. */
  async createVolume(name: string, labels: Record<string, string>): Promise<void> {
    await this.call(`the creation of volume ${name}`, (abortSignal) =>
      this.docker.createVolume({ Name: name, Labels: labels, abortSignal }),
    );
  }

  /** The names of the named volumes that carry `label` (`key` or `key=value`). */
  async listVolumes(label: string): Promise<string[]> {
    const listed = await this.call('the volume list', (abortSignal) =>
      this.docker.listVolumes({ filters: { label: [label] }, abortSignal }),
    );
    return (listed.Volumes ?? []).map((v) => v.Name);
  }

  /** Removes a named volume and its data; Docker refuses (409) while a container uses it. */
  async removeVolume(name: string): Promise<void> {
    await this.call(`the removal of volume ${name}`, (abortSignal) =>
      this.docker.getVolume(name).remove({ abortSignal }),
    );
  }

  private containerConfigOf(input: CreateContainerInput): Docker.ContainerCreateOptions {
    const port = `${input.exposedPort ?? SSH_CONTAINER_PORT}/tcp`;
    const env = {
      ...input.env,
      ...(input.sshPublicKeys === undefined ? {} : { PUBLIC_KEY: input.sshPublicKeys.join('\n') }),
    };
    const gpus = input.gpuIndexes ?? [];
    return {
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
  }

  /**
   * Runs one Engine call with an idle deadline: Docker silent for `timeoutMs` fails it as unreachable (a pull's
   * progress events restart the clock through `alive`). Whatever it rejects with becomes a DockerError.
   */
  private async call<T>(
    what: string,
    run: (signal: AbortSignal, alive: () => void) => Promise<T>,
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const silence = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const alive = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => silence.abort(), timeoutMs);
    };
    alive();
    const signal = options.signal === undefined ? silence.signal : AbortSignal.any([silence.signal, options.signal]);
    try {
      return await run(signal, alive);
    } catch (err) {
      if (silence.signal.aborted)
        throw new DockerError('unreachable', 0, `Docker did not answer ${what} within ${timeoutMs} ms`);
      throw dockerErrorOf(err);
    } finally {
      clearTimeout(timer);
    }
  }
}

function stateOf(value: unknown): DockerContainerState {
  if (typeof value !== 'string' || !STATES.has(value))
    throw new DockerError('error', 200, `Docker reported an unknown container state: ${String(value)}`);
  return value as DockerContainerState;
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
