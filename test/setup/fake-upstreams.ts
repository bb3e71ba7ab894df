/**
 * A chain of named local fake upstreams (test/fixtures/fake-upstream.ts) for routing tests (SPEC 4.2): each fake
 * answers as its current behaviour says, and one shared list records which fake each request reached, so a test
 * can assert the order a chain was tried in. Hooks are registered where it is called, like `harnessOn`: call it
 * before the hook that starts the gateway, which needs the fakes' addresses and is then closed before them.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type FakeBehaviour,
  type FakeUpstream,
  type FakeUpstreamOptions,
  startFakeUpstream,
} from '../fixtures/fake-upstream.js';

export interface NamedFakes<Name extends string> {
  /** The running fakes, by name (once the block's beforeAll hooks ran). */
  fakes: Record<Name, FakeUpstream>;
  /** What each fake does with its next request; set back to `ok` before each test. */
  behaviours: Record<Name, FakeBehaviour>;
  /** Which fake received each request, in arrival order; emptied before each test. */
  arrivals: Name[];
}

/** Starts one fake per name with `options` before the block's tests, resets them before each, closes them after. */
export function namedFakeUpstreams<const Name extends string>(
  names: readonly Name[],
  options: Omit<FakeUpstreamOptions, 'behaviour'> = {},
): NamedFakes<Name> {
  const fakes = {} as Record<Name, FakeUpstream>;
  const behaviours = {} as Record<Name, FakeBehaviour>;
  const arrivals: Name[] = [];
  const reset = () => {
    arrivals.length = 0;
    for (const name of names) behaviours[name] = 'ok';
  };
  reset();
  beforeAll(async () => {
    for (const name of names) {
      fakes[name] = await startFakeUpstream({
        ...options,
        behaviour: () => {
          arrivals.push(name);
          return behaviours[name];
        },
      });
    }
  });
  beforeEach(reset);
  afterAll(async () => {
    for (const name of names) await fakes[name]?.close();
  });
  return { fakes, behaviours, arrivals };
}
