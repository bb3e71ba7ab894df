import { describe, expect, it } from 'vitest';
import type { UpstreamFailure } from '../../src/adapters/upstream/index.js';
import { classifyExhaustion, isFailoverable } from '../../src/domain/routing/classify.js';
import type { ErrorCode } from '../../src/errors/catalog.js';

const http = (status: number, extra: Partial<Extract<UpstreamFailure, { kind: 'http' }>> = {}): UpstreamFailure => ({
  kind: 'http',
  status,
  message: `HTTP ${status}`,
  ...extra,
});
const timeout: UpstreamFailure = { kind: 'timeout', message: 'budget' };
const connect: UpstreamFailure = { kind: 'connect', message: 'ECONNREFUSED' };
const badResponse: UpstreamFailure = { kind: 'bad_response', message: 'not JSON' };
const filtered = http(400, { contentFilter: true });

describe('classifyExhaustion (SPEC 7.2)', () => {
  const cases: [string, UpstreamFailure[], ErrorCode][] = [
    ['one content filter among others', [http(503), filtered, timeout], 'content_filter'],
    ['a content filter alone', [filtered], 'content_filter'],
    ['every upstream 429', [http(429), http(429, { retryAfterSec: 3 })], 'upstream_rate_limit'],
    ['every upstream timed out', [timeout, timeout], 'upstream_timeout'],
    ['every upstream a non-429 4xx', [http(400), http(404), http(422)], 'upstream_bad_response'],
    ['every upstream a 5xx', [http(500), http(503)], 'upstream_server_error'],
    ['5xx and 2xx with a broken body', [http(502), badResponse], 'upstream_server_error'],
    ['only broken bodies', [badResponse], 'upstream_server_error'],
    ['none reachable', [connect, connect], 'provider_unavailable'],
    ['mixed with a 5xx', [connect, http(500), timeout], 'upstream_server_error'],
    ['mixed without a 5xx', [connect, timeout], 'provider_unavailable'],
    ['429 and another 4xx', [http(429), http(400)], 'provider_unavailable'],
    ['4xx and a broken body', [http(400), badResponse], 'provider_unavailable'],
    ['429 and a 5xx', [http(429), http(503)], 'upstream_server_error'],
  ];
  it.each(cases)('%s → %s', (_name, failures, code) => {
    expect(classifyExhaustion(failures)).toBe(code);
  });

  it('refuses an empty list (a chain is never empty)', () => {
    expect(() => classifyExhaustion([])).toThrow(RangeError);
  });
});

describe('isFailoverable', () => {
  it.each<[string, UpstreamFailure, boolean]>([
    ['5xx', http(503), true],
    ['429', http(429), true],
    ['other 4xx', http(401), true],
    ['timeout', timeout, true],
    ['connect', connect, true],
    ['bad response', badResponse, true],
    ['aborted: the client left', { kind: 'aborted', message: 'client closed' }, false],
    ['content filter: SPEC 7.5 not re-routed', filtered, false],
  ])('%s → %s', (_name, failure, expected) => {
    expect(isFailoverable(failure)).toBe(expected);
  });
});
