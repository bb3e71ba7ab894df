/** The registry's WWW-Authenticate Bearer challenge, as Docker Hub, GHCR and others send it (auth-challenge.ts). */
import { describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../src/adapters/image-registry/auth-challenge.js';

describe('bearerChallenge', () => {
  it("Docker Hub's challenge", () => {
    expect(
      bearerChallenge(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/ubuntu:pull"',
      ),
    ).toEqual({
      realm: 'https://auth.docker.io/token',
      service: 'registry.docker.io',
      scope: 'repository:library/ubuntu:pull',
    });
  });

  it('commas inside quotes, escaped quotes, spaces around separators, unquoted values, case-insensitive names', () => {
    expect(
      bearerChallenge(
        'bearer  Realm = "https://r.example/token" , service=reg.example, scope="repository:a/b:pull,push", error="x\\"y"',
      ),
    ).toEqual({
      realm: 'https://r.example/token',
      service: 'reg.example',
      scope: 'repository:a/b:pull,push',
    });
  });

  it('the Bearer one among several headers; none without a realm, for Basic, or with no header', () => {
    expect(
      bearerChallenge(['Basic realm="Registry"', 'Bearer realm="https://ghcr.io/token",service="ghcr.io"']),
    ).toEqual({ realm: 'https://ghcr.io/token', service: 'ghcr.io' });
    expect(bearerChallenge('Basic realm="Registry Realm"')).toBeNull();
    expect(bearerChallenge('Bearer service="x"')).toBeNull();
    expect(bearerChallenge(undefined)).toBeNull();
  });
});
