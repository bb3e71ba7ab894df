/** The one behavioural contract of the tunnel-store port (SSH proxy ports and tunnel requests), run against every implementation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TunnelStore } from '../../src/adapters/tunnel-store/index.js';
import { newId } from '../../src/lib/ids.js';

export function tunnelStoreConformance(
  name: string,
  make: () => Promise<{ store: TunnelStore; cleanup(): Promise<void> }>,
): void {
  describe(`TunnelStore conformance: ${name}`, () => {
    let subject: { store: TunnelStore; cleanup(): Promise<void> } | undefined;
    const store = (): TunnelStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('gives each rental its own port, the same one again, none when the range is full, and a released one back', async () => {
      const range = { first: 40_000, last: 40_002 };
      const [a, b, c, d] = [newId('inst'), newId('inst'), newId('inst'), newId('inst')];
      expect(await store().allocate(a, range, 1)).toBe(40_000);
      expect(await store().allocate(a, range, 2)).toBe(40_000);
      expect(await store().allocate(b, range, 3)).toBe(40_001);
      expect(await store().allocate(c, range, 4)).toBe(40_002);
      expect(await store().allocate(d, range, 5)).toBeNull();
      expect(await store().portOf(b)).toBe(40_001);
      await store().release(b);
      expect(await store().portOf(b)).toBeNull();
      expect(await store().allocate(d, range, 6)).toBe(40_001);
      expect((await store().ports()).filter((p) => p.port >= 40_000 && p.port <= 40_002)).toEqual([
        { port: 40_000, instanceId: a },
        { port: 40_001, instanceId: d },
        { port: 40_002, instanceId: c },
      ]);
    });

    it('never gives one port to two rentals, however many allocate at once', async () => {
      const range = { first: 41_000, last: 41_009 };
      const ids = Array.from({ length: 8 }, () => newId('inst'));
      const ports = await Promise.all(ids.map((id) => store().allocate(id, range, 1)));
      expect(new Set(ports).size).toBe(8);
      for (const [i, id] of ids.entries()) expect(await store().portOf(id)).toBe(ports[i]);
    });

    it('hands each tunnel request to one claim, oldest first, not those made before `since`, and expires old ones', async () => {
      const machineId = newId('mch');
      const request = (token: string, createdAtMs: number) => ({
        token,
        machineId,
        instanceId: newId('inst'),
        tunnel: { host: 'proxy-1.example', port: 7022 },
        createdAtMs,
      });
      await store().request(request('old', 100));
      await store().request(request('t2', 300));
      await store().request(request('t1', 200));
      await store().request({ ...request('other', 250), machineId: newId('mch') });
      const claimed = await store().claim(machineId, 150);
      expect(claimed.map((r) => r.token)).toEqual(['t1', 't2']);
      expect(claimed[0]!.tunnel).toEqual({ host: 'proxy-1.example', port: 7022 });
      expect(await store().claim(machineId, 150)).toEqual([]);
      expect(await store().expire(150)).toBe(1);
      expect(await store().claim(machineId, 0)).toEqual([]);
    });
  });
}
