import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ImageRegistryError } from '../../src/adapters/image-registry/index.js';
import { DockerEngine, DockerError, INSTANCE_LABEL } from '../../src/agent/docker-engine.js';
import { makeDockerCerts } from '../fixtures/docker-tls.js';
import {
  CRASHING_IMAGE,
  FAILING_IMAGE,
  type FakeDocker,
  MISSING_IMAGE,
  startFakeDocker,
} from '../fixtures/fake-docker.js';
import { startFakeDockerSsh } from '../fixtures/fake-docker-ssh.js';
import { acceptsConnections } from '../setup/tcp-probe.js';

/** Connects to a loopback port and reads the first line (an SSH daemon's banner), then checks it echoes. */
function sshExchange(port: number): Promise<{ banner: string; echoed: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const [banner, rest] = received.split('\r\n');
      if (rest === undefined) return;
      if (rest === '') socket.write('hello container\n');
      else if (rest.endsWith('\n')) {
        socket.destroy();
        resolve({ banner: banner!, echoed: rest });
      }
    });
    socket.on('error', reject);
  });
}

async function dockerError(promise: Promise<unknown>): Promise<DockerError> {
  const err: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DockerError);
  return err as DockerError;
}

describe('DockerEngine against a fake Docker daemon on a unix socket', () => {
  let fake: FakeDocker;
  let docker: DockerEngine;

  beforeEach(async () => {
    fake = await startFakeDocker();
    docker = new DockerEngine({ connection: { socketPath: fake.socketPath } });
  });
  afterEach(() => fake.close());

  const rental = (name: string, image = 'ubuntu:24.04') => ({
    name,
    image,
    env: { JUPYTER_TOKEN: 't0ken' },
    labels: { [INSTANCE_LABEL]: `ins_${name}` },
    gpuIndexes: [0, 2],
    diskGb: 50,
    sshPublicKeys: ['ssh-ed25519 AAAAC3Nza renter@laptop', 'ssh-rsa AAAAB3Nza renter@desktop'],
  });

  it("pulls an image at the engine's own API version, with a tag (latest when none is named) and reads the progress to the end", async () => {
    await docker.pullImage('ubuntu:24.04');
    await docker.pullImage('pytorch/pytorch');
    const pulls = fake.requests.filter((r) => r.path === '/images/create');
    expect(pulls.map((r) => r.query)).toEqual([
      { fromImage: 'docker.io/library/ubuntu', tag: '24.04' },
      { fromImage: 'docker.io/pytorch/pytorch', tag: 'latest' },
    ]);
    expect([...fake.images]).toEqual(['docker.io/library/ubuntu:24.04', 'docker.io/pytorch/pytorch:latest']);
  });

  it('sends a digest as the tag, as the docker CLI does', async () => {
    const digest = `sha256:${'ab'.repeat(32)}`;
    await docker.pullImage(`ghcr.io/acme/trainer@${digest}`);
    expect(fake.requests[0]!.query).toEqual({ fromImage: 'ghcr.io/acme/trainer', tag: digest });
  });

  it("fails a pull whose progress stream carries an error line, with Docker's message", async () => {
    const err = await dockerError(docker.pullImage(FAILING_IMAGE));
    expect(err.kind).toBe('pull_failed');
    expect(err.message).toContain('no space left on device');
    expect(fake.images.size).toBe(0);
  });

  it('reports a repository Docker cannot find as not_found with its message', async () => {
    const err = await dockerError(docker.pullImage(MISSING_IMAGE));
    expect(err).toMatchObject({ kind: 'not_found', status: 404 });
    expect(err.message).toContain('repository does not exist');
  });

  it('refuses a reference Docker would refuse before sending anything', async () => {
    await expect(docker.pullImage('Ubuntu:24.04')).rejects.toBeInstanceOf(ImageRegistryError);
    expect(fake.requests).toEqual([]);
  });

  it('creates a container with its labels, env, SSH keys, a loopback SSH port and the rented GPUs', async () => {
    await docker.pullImage('ubuntu:24.04');
    const id = await docker.createContainer(rental('r1'));
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    const create = fake.requests.find((r) => r.path === '/containers/create')!;
    expect(create.query).toEqual({ name: 'r1' });
    expect(create.body).toEqual({
      Image: 'ubuntu:24.04',
      Env: ['JUPYTER_TOKEN=t0ken', 'PUBLIC_KEY=ssh-ed25519 AAAAC3Nza renter@laptop\nssh-rsa AAAAB3Nza renter@desktop'],
      Labels: { 'cgw.instance': 'ins_r1' },
      ExposedPorts: { '22/tcp': {} },
      HostConfig: {
        PortBindings: { '22/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
        DeviceRequests: [{ Driver: 'nvidia', DeviceIDs: ['0', '2'], Capabilities: [['gpu']] }],
      },
    });
  });

  it('asks for no GPUs when none are rented, and caps the disk only when the client is told to', async () => {
    await docker.pullImage('ubuntu:24.04');
    await docker.createContainer({ ...rental('cpu'), gpuIndexes: [] });
    const quota = new DockerEngine({ connection: { socketPath: fake.socketPath }, diskQuota: true });
    await quota.createContainer(rental('capped'));
    const [plain, capped] = fake.requests
      .filter((r) => r.path.endsWith('/containers/create'))
      .map((r) => r.body as { HostConfig: Record<string, unknown> });
    expect(plain!.HostConfig).not.toHaveProperty('DeviceRequests');
    expect(plain!.HostConfig).not.toHaveProperty('StorageOpt');
    expect(capped!.HostConfig['StorageOpt']).toEqual({ size: '50G' });
  });

  it('mounts a named volume at /workspace; creates, lists by label and removes volumes, refusing one a container uses', async () => {
    await docker.pullImage('ubuntu:24.04');
    await docker.createVolume('cgw-vol-7', { 'cgw.volume': '1' });
    await docker.createVolume('cgw-vol-7', { 'cgw.volume': '1' }); // an existing name is answered as it is
    await docker.createVolume('scratch', {});
    const id = await docker.createContainer({ ...rental('with-volume'), volume: 'cgw-vol-7' });
    const create = fake.requests.filter((r) => r.path.endsWith('/containers/create')).at(-1)!.body as {
      HostConfig: Record<string, unknown>;
    };
    expect(create.HostConfig['Mounts']).toEqual([{ Type: 'volume', Source: 'cgw-vol-7', Target: '/workspace' }]);
    expect(await docker.listVolumes('cgw.volume')).toEqual(['cgw-vol-7']);
    expect(await dockerError(docker.removeVolume('cgw-vol-7'))).toMatchObject({ status: 409 });
    await docker.removeContainer(id, { force: true });
    await docker.removeVolume('cgw-vol-7');
    expect(await docker.listVolumes('cgw.volume')).toEqual([]);
    expect(await dockerError(docker.removeVolume('cgw-vol-7'))).toMatchObject({ kind: 'not_found', status: 404 });
  });

  it('refuses a container name in use (409 conflict) and an image not pulled (404)', async () => {
    await docker.pullImage('ubuntu:24.04');
    await docker.createContainer(rental('dup'));
    expect(await dockerError(docker.createContainer(rental('dup')))).toMatchObject({ kind: 'conflict', status: 409 });
    const missing = await dockerError(docker.createContainer(rental('other', 'nginx:1')));
    expect(missing).toMatchObject({ kind: 'not_found', status: 404, message: 'No such image: nginx:1' });
  });

  it('starts a container whose SSH port answers its banner and echoes; start again is a no-op', async () => {
    await docker.pullImage('ubuntu:24.04');
    const id = await docker.createContainer(rental('r1'));
    expect(await docker.inspectContainer(id)).toMatchObject({ state: 'created', exitCode: null, sshHostPort: null });
    await docker.startContainer(id);
    await docker.startContainer(id); // 304: already running
    const running = await docker.inspectContainer(id);
    expect(running).toEqual({
      id,
      name: 'r1',
      state: 'running',
      exitCode: null,
      sshHostPort: expect.any(Number),
      labels: { 'cgw.instance': 'ins_r1' },
    });
    const { banner, echoed } = await sshExchange(running.sshHostPort!);
    expect(banner).toBe(`SSH-2.0-fake-container-${id}`);
    expect(echoed).toBe('hello container\n');
  });

  it('reports a container that exits right after start as exited with its code', async () => {
    await docker.pullImage(CRASHING_IMAGE);
    const id = await docker.createContainer(rental('crash', CRASHING_IMAGE));
    await docker.startContainer(id);
    expect(await docker.inspectContainer(id)).toMatchObject({ state: 'exited', exitCode: 1, sshHostPort: null });
  });

  it('lists every container with the label, running or not, with its state and SSH port', async () => {
    await docker.pullImage('ubuntu:24.04');
    const a = await docker.createContainer(rental('a'));
    const b = await docker.createContainer({ ...rental('b'), labels: { other: 'x' } });
    const c = await docker.createContainer(rental('c'));
    await docker.startContainer(a);
    const listed = await docker.listContainers({ label: INSTANCE_LABEL });
    const list = fake.requests.find((r) => r.path === '/containers/json')!;
    expect(list.query).toEqual({ all: 'true', filters: '{"label":["cgw.instance"]}' });
    expect(listed.map((x) => x.id).sort()).toEqual([a, c].sort()); // not b, which lacks the label
    expect(listed.find((x) => x.id === a)).toEqual({
      id: a,
      name: 'a',
      image: 'ubuntu:24.04',
      state: 'running',
      sshHostPort: expect.any(Number),
      labels: { 'cgw.instance': 'ins_a' },
    });
    expect(listed.find((x) => x.id === c)).toMatchObject({ state: 'created', sshHostPort: null });
    expect(await docker.listContainers({ label: 'cgw.instance=ins_c' })).toEqual([expect.objectContaining({ id: c })]);
    expect(listed.map((x) => x.id)).not.toContain(b);
  });

  it('stops a container (its SSH port closes), then removes it with its volumes', async () => {
    await docker.pullImage('ubuntu:24.04');
    const id = await docker.createContainer(rental('r1'));
    await docker.startContainer(id);
    const port = (await docker.inspectContainer(id)).sshHostPort!;
    await docker.stopContainer(id, 10);
    await docker.stopContainer(id, 10); // 304: already stopped
    expect(fake.requests.filter((r) => r.path.endsWith('/stop')).map((r) => r.query)).toEqual([
      { t: '10' },
      { t: '10' },
    ]);
    expect(await docker.inspectContainer(id)).toMatchObject({ state: 'exited', exitCode: 143, sshHostPort: null });
    expect(await acceptsConnections(port)).toBe(false);
    await docker.removeContainer(id, { volumes: true, force: true });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: `/containers/${id}`,
      query: { v: 'true', force: 'true' },
    });
    expect(await docker.listContainers({ label: INSTANCE_LABEL })).toEqual([]);
  });

  it('force-removes a running container and closes its SSH port; without force it is a conflict', async () => {
    await docker.pullImage('ubuntu:24.04');
    const id = await docker.createContainer(rental('r1'));
    await docker.startContainer(id);
    const port = (await docker.inspectContainer(id)).sshHostPort!;
    expect(await dockerError(docker.removeContainer(id))).toMatchObject({ kind: 'conflict', status: 409 });
    await docker.removeContainer(id, { volumes: true, force: true });
    expect(await acceptsConnections(port)).toBe(false);
  });

  it("answers not_found with Docker's message for an unknown container, on every call", async () => {
    const unknown = 'f00dfeed';
    for (const call of [
      () => docker.inspectContainer(unknown),
      () => docker.startContainer(unknown),
      () => docker.stopContainer(unknown, 1),
      () => docker.removeContainer(unknown, { force: true }),
    ]) {
      expect(await dockerError(call())).toMatchObject({
        kind: 'not_found',
        status: 404,
        message: `No such container: ${unknown}`,
      });
    }
  });
});

describe('DockerEngine transport', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('speaks to the tcp address DOCKER_HOST names', async () => {
    const fake = await startFakeDocker({ tcp: true });
    try {
      vi.stubEnv('DOCKER_HOST', fake.tcpUrl!.replace('http://', 'tcp://'));
      const docker = new DockerEngine();
      await docker.pullImage('ubuntu:24.04');
      expect(fake.images.has('docker.io/library/ubuntu:24.04')).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it('speaks TLS to a tcp:// DOCKER_HOST with the client certificate DOCKER_CERT_PATH holds, and not without', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docker-tls-'));
    const certs = makeDockerCerts(dir);
    const fake = await startFakeDocker({ tls: certs.daemon });
    try {
      vi.stubEnv('DOCKER_HOST', fake.tcpUrl!.replace('https://', 'tcp://'));
      vi.stubEnv('DOCKER_TLS_VERIFY', '1');
      vi.stubEnv('DOCKER_CERT_PATH', certs.certPath);
      await new DockerEngine().pullImage('ubuntu:24.04');
      expect(fake.images.has('docker.io/library/ubuntu:24.04')).toBe(true);
      vi.stubEnv('DOCKER_CERT_PATH', '');
      expect(await dockerError(new DockerEngine().listContainers())).toMatchObject({ kind: 'unreachable' });
      expect(fake.requests).toHaveLength(1); // the daemon never heard the client without its certificate
    } finally {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('speaks to an ssh://user@host DOCKER_HOST through `docker system dial-stdio` on that host', async () => {
    const fake = await startFakeDocker();
    const ssh = await startFakeDockerSsh(fake.socketPath);
    try {
      vi.stubEnv('DOCKER_HOST', ssh.hostFor('provider'));
      vi.stubEnv('SSH_AUTH_SOCK', '');
      const docker = new DockerEngine();
      await docker.pullImage('ubuntu:24.04');
      const labels = { [INSTANCE_LABEL]: 'ins_ssh' };
      const id = await docker.createContainer({ name: 'over-ssh', image: 'ubuntu:24.04', labels, diskGb: 20 });
      expect((await docker.listContainers()).map((c) => c.id)).toEqual([id]);
      expect(new Set(ssh.commands)).toEqual(new Set(['provider: docker system dial-stdio']));
    } finally {
      await ssh.close();
      await fake.close();
    }
  });

  it('is unreachable, not a crash, when no daemon listens', async () => {
    const docker = new DockerEngine({ connection: { socketPath: '/nonexistent/docker.sock' } });
    expect(await dockerError(docker.listContainers())).toMatchObject({ kind: 'unreachable', status: 0 });
  });

  it('gives up on a daemon that stays silent past the timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'silent-docker-'));
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(join(dir, 'docker.sock'), resolve));
    try {
      const docker = new DockerEngine({ connection: { socketPath: join(dir, 'docker.sock') }, timeoutMs: 100 });
      const err = await dockerError(docker.inspectContainer('abc'));
      expect(err).toMatchObject({ kind: 'unreachable', status: 0 });
      expect(err.message).toContain('within 100 ms');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
