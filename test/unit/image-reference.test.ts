/**
 * Docker image references parsed as `docker pull` parses them (src/adapters/image-registry/reference.ts). Most
 * cases are distribution/reference's own (normalize_test.go, reference_test.go), so a divergence from Docker's
 * grammar shows here; then the API address each reference is asked on.
 */
import { describe, expect, it } from 'vitest';
import { ImageRegistryError } from '../../src/adapters/image-registry/index.js';
import { registryBaseUrl } from '../../src/adapters/image-registry/oci-registry.js';
import { parseImageReference } from '../../src/adapters/image-registry/reference.js';

const SHA256 = 'sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9c';
const SHA512 = `sha512:${'ab'.repeat(64)}`;

function invalidReason(input: string): string {
  try {
    parseImageReference(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ImageRegistryError);
    expect((error as ImageRegistryError).kind).toBe('invalid_reference');
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('image references: normalisation', () => {
  it.each([
    // input, reference, registry, repository, tag, digest
    ['ubuntu', 'docker.io/library/ubuntu:latest', 'docker.io', 'library/ubuntu', 'latest', null],
    ['ubuntu:24.04', 'docker.io/library/ubuntu:24.04', 'docker.io', 'library/ubuntu', '24.04', null],
    ['library/ubuntu:24.04', 'docker.io/library/ubuntu:24.04', 'docker.io', 'library/ubuntu', '24.04', null],
    ['docker.io/ubuntu', 'docker.io/library/ubuntu:latest', 'docker.io', 'library/ubuntu', 'latest', null],
    [
      'index.docker.io/library/debian',
      'docker.io/library/debian:latest',
      'docker.io',
      'library/debian',
      'latest',
      null,
    ],
    ['index.docker.io/debian', 'docker.io/library/debian:latest', 'docker.io', 'library/debian', 'latest', null],
    [
      'pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime',
      'docker.io/pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime',
      'docker.io',
      'pytorch/pytorch',
      '2.3.0-cuda12.1-cudnn8-runtime',
      null,
    ],
    ['library/foo/bar', 'docker.io/library/foo/bar:latest', 'docker.io', 'library/foo/bar', 'latest', null],
    ['other/library', 'docker.io/other/library:latest', 'docker.io', 'other/library', 'latest', null],
    ['ghcr.io/owner/app:v1', 'ghcr.io/owner/app:v1', 'ghcr.io', 'owner/app', 'v1', null],
    [
      'nvcr.io/nvidia/pytorch:24.05-py3',
      'nvcr.io/nvidia/pytorch:24.05-py3',
      'nvcr.io',
      'nvidia/pytorch',
      '24.05-py3',
      null,
    ],
    ['example.com/privatebase', 'example.com/privatebase:latest', 'example.com', 'privatebase', 'latest', null],
    [
      'example.com:8000/private/moonbase',
      'example.com:8000/private/moonbase:latest',
      'example.com:8000',
      'private/moonbase',
      'latest',
      null,
    ],
    ['localhost:5000/team/app:1.0', 'localhost:5000/team/app:1.0', 'localhost:5000', 'team/app', '1.0', null],
    ['localhost/app', 'localhost/app:latest', 'localhost', 'app', 'latest', null],
    ['127.0.0.1:5000/team/app:1.0', '127.0.0.1:5000/team/app:1.0', '127.0.0.1:5000', 'team/app', '1.0', null],
    [
      '[fc00::1]:5000/docker/docker',
      '[fc00::1]:5000/docker/docker:latest',
      '[fc00::1]:5000',
      'docker/docker',
      'latest',
      null,
    ],
    ['test-com:8080/foo', 'test-com:8080/foo:latest', 'test-com:8080', 'foo', 'latest', null],
    ['xn--n3h.com:18080/foo', 'xn--n3h.com:18080/foo:latest', 'xn--n3h.com:18080', 'foo', 'latest', null],
    // Upper case cannot be a Docker Hub namespace, so an upper-case first element is a registry host.
    ['Foo/bar', 'Foo/bar:latest', 'Foo', 'bar', 'latest', null],
    // No dot, colon or "localhost": a namespace on Docker Hub, not a host.
    ['test_com/foo', 'docker.io/test_com/foo:latest', 'docker.io', 'test_com/foo', 'latest', null],
    // A single element is always an official image, even when it looks like host:port.
    ['192.168.0.1:80', 'docker.io/library/192.168.0.1:80', 'docker.io', 'library/192.168.0.1', '80', null],
    ['localhost:5000', 'docker.io/library/localhost:5000', 'docker.io', 'library/localhost', '5000', null],
    // A digest: no default tag; tag and digest together are both kept (Docker then pulls by the digest).
    [`redis@${SHA256}`, `docker.io/library/redis@${SHA256}`, 'docker.io', 'library/redis', null, SHA256],
    [
      `busybox:latest@${SHA256}`,
      `docker.io/library/busybox:latest@${SHA256}`,
      'docker.io',
      'library/busybox',
      'latest',
      SHA256,
    ],
    [`localhost:5000/app@${SHA512}`, `localhost:5000/app@${SHA512}`, 'localhost:5000', 'app', null, SHA512],
    // Hex that is not exactly an image id is an ordinary name; with a registry, even 64 hex characters are.
    [
      'dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9',
      'docker.io/library/dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9:latest',
      'docker.io',
      'library/dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3dbe638c23575912276fc9',
      'latest',
      null,
    ],
    [
      'docker.io/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a',
      'docker.io/library/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a:latest',
      'docker.io',
      'library/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a',
      'latest',
      null,
    ],
  ])('%s → %s', (input, reference, registry, repository, tag, digest) => {
    expect(parseImageReference(input)).toMatchObject({ reference, registry, repository, tag, digest });
  });

  it('Docker Hub is asked on registry-1.docker.io; every other registry on its own host and port', () => {
    expect(parseImageReference('ubuntu').apiHost).toBe('registry-1.docker.io');
    expect(parseImageReference('index.docker.io/library/ubuntu').apiHost).toBe('registry-1.docker.io');
    expect(parseImageReference('ghcr.io/o/app').apiHost).toBe('ghcr.io');
    expect(parseImageReference('localhost:5000/app').apiHost).toBe('localhost:5000');
    expect(parseImageReference('[::1]:5000/app').apiHost).toBe('[::1]:5000');
  });

  it('path components: single letters, repeated dashes, one or two underscores, periods between characters', () => {
    for (const name of [
      'd/docker',
      'jess/t',
      'docker-rules/docker',
      'docker---rules/docker',
      'dock__er/docker',
      'dock_er/do.cker',
      'a/b/c/d/e',
    ]) {
      expect(parseImageReference(name).repository).toBe(name);
    }
  });

  it('tags: word characters, periods and dashes, not leading with either, 128 characters at most', () => {
    for (const tag of ['v1', '_x', 'A-Z.ok_1', 'x'.repeat(128)]) {
      expect(parseImageReference(`app:${tag}`).tag).toBe(tag);
    }
    for (const tag of ['.v1', '-v1', 'x'.repeat(129), 'v1+meta', 'ü']) invalidReason(`app:${tag}`);
    invalidReason('app:');
  });
});

describe('image references: refused', () => {
  it.each([
    '',
    'https://github.com/docker/docker',
    'docker/Docker',
    'docker.io/docker/Docker',
    'Ubuntu',
    '-docker',
    '-docker/docker',
    'docker-/docker',
    '-docker.io/docker/docker',
    'docker///docker',
    'docker/',
    '____/____',
    '_docker/_docker',
    'dock..er/docker',
    'dock_.er/docker',
    'dock___er/docker',
    '[fc00::1]',
    '[fc00::1]:5000',
    'fc00::1:5000/debian',
    '[fe80::1%eth0]:5000/debian',
    '[2001:db8:3:4::192.0.2.33]:5000/debian',
    ' ubuntu',
    'ubuntu ',
    'ubuntu:24.04:extra',
    'a_b.c/app',
  ])('%j', (input) => {
    invalidReason(input);
  });

  it('a bare image id: Docker refuses 64 hexadecimal characters as a name', () => {
    expect(invalidReason('1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a')).toMatch(/image id/);
  });

  it('upper case in the repository, said as such', () => {
    expect(invalidReason('docker/Docker')).toMatch(/lowercase/);
    expect(invalidReason('ghcr.io/Owner/app')).toMatch(/lowercase/);
  });

  it('digests: a registered algorithm, lower-case hex of its exact length', () => {
    expect(invalidReason(`app@md5:${'a'.repeat(32)}`)).toMatch(/unsupported digest algorithm/);
    expect(invalidReason(`app@sha256:${'A'.repeat(64)}`)).toMatch(/lower-case/);
    expect(invalidReason(`app@sha256:${'a'.repeat(63)}`)).toMatch(/64/);
    expect(invalidReason(`app@sha512:${'a'.repeat(64)}`)).toMatch(/128/);
    invalidReason('app@sha256:');
    invalidReason(`app@${'a'.repeat(64)}`);
    expect(invalidReason(`app@constructor:${'a'.repeat(64)}`)).toMatch(/unsupported digest algorithm/);
  });

  it('a registry no URL can name: a malformed IPv6 address, a port above 65535', () => {
    expect(invalidReason('[:::::]:5000/team/app')).toMatch(/registry host or port/);
    expect(invalidReason('example.com:99999/team/app')).toMatch(/registry host or port/);
    expect(parseImageReference('example.com:65535/team/app').apiHost).toBe('example.com:65535');
  });

  it('a name over 255 characters, registry included; input over 1024 characters before any parsing', () => {
    expect(parseImageReference(`example.com/${'a'.repeat(243)}`).repository).toHaveLength(243);
    expect(invalidReason(`example.com/${'a'.repeat(244)}`)).toMatch(/255/);
    expect(invalidReason(`${'a/'.repeat(600)}a`)).toMatch(/1024/);
  });
});

describe('registry API address', () => {
  const base = (input: string, insecure: string[] = []) =>
    registryBaseUrl(parseImageReference(input), new Set(insecure)).href;

  it('https, with Docker Hub on registry-1.docker.io', () => {
    expect(base('ubuntu:24.04')).toBe('https://registry-1.docker.io/v2/');
    expect(base('ghcr.io/o/app')).toBe('https://ghcr.io/v2/');
    expect(base('registry.internal:5000/app')).toBe('https://registry.internal:5000/v2/');
  });

  it('plain http for loopback and localhost, as Docker treats 127.0.0.0/8', () => {
    expect(base('localhost:5000/team/app:1.0')).toBe('http://localhost:5000/v2/');
    expect(base('127.0.0.1:5000/team/app')).toBe('http://127.0.0.1:5000/v2/');
    expect(base('127.9.9.9:5000/team/app')).toBe('http://127.9.9.9:5000/v2/');
    expect(base('[::1]:5000/app')).toBe('http://[::1]:5000/v2/');
  });

  it('plain http for the insecure registries, by host:port or host', () => {
    expect(base('registry.internal:5000/app', ['registry.internal:5000'])).toBe('http://registry.internal:5000/v2/');
    expect(base('registry.internal:5000/app', ['registry.internal'])).toBe('http://registry.internal:5000/v2/');
    expect(base('registry.internal:5000/app', ['other:5000'])).toBe('https://registry.internal:5000/v2/');
  });
});
