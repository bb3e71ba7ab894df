/** The one behavioural contract of the market-store port (src/adapters/market-store), run against every implementation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  EarningsGroup,
  InstanceRecord,
  MachineRecord,
  MarketStore,
  OfferQuery,
} from '../../src/adapters/market-store/index.js';
import { newId } from '../../src/lib/ids.js';

export interface MarketStoreUnderTest {
  store: MarketStore;
  cleanup(): Promise<void>;
}

const T0 = 1_750_000_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The start of the UTC day of a time. */
const dayOf = (ms: number) => ms - (ms % DAY);

export function machine(overrides: Partial<MachineRecord> = {}): MachineRecord {
  return {
    id: newId('mch'),
    providerAccountId: newId('acc'),
    name: 'rig',
    gpuName: 'RTX_4090',
    gpuCount: 4,
    vramGb: 24,
    cpuCores: 32,
    ramGb: 128,
    diskGb: 2000,
    location: 'DE',
    pricePerGpuHourMicros: 400_000n,
    minGpus: 1,
    discountsBp: { day: 1000, week: 2000, month: 3000 },
    availableUntilMs: null,
    listed: true,
    verification: 'verified',
    lastHeartbeatMs: T0,
    reliabilityBp: 10_000,
    priceRise: null,
    createdAtMs: T0,
    ...overrides,
  };
}

/** An instance of `m` as a placement would make it (one GPU, minute plan, pending). */
export function instance(
  m: MachineRecord,
  overrides: Partial<InstanceRecord> = {},
): Omit<InstanceRecord, 'gpuIndexes' | 'version'> {
  return {
    id: newId('inst'),
    accountId: newId('acc'),
    burstOrderId: null,
    machineId: m.id,
    providerAccountId: m.providerAccountId,
    gpuName: m.gpuName,
    gpuCount: 1,
    dockerImage: 'ubuntu:24.04',
    diskGb: 40,
    pricingType: 'minute',
    unitPriceMicros: 6_666n,
    termMs: null,
    desiredStatus: 'running',
    status: 'pending',
    statusReason: null,
    runningSinceMs: null,
    runningMs: 0,
    settledRunningMs: 0,
    chargedMicros: 0n,
    settleSeq: 0,
    pendingChargeMicros: 0n,
    minutePriceMicros: 6_666n,
    holdId: null,
    holdRenewAtMs: null,
    sshPort: null,
    volumeId: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...overrides,
  };
}

export function marketStoreConformance(name: string, make: () => Promise<MarketStoreUnderTest>): void {
  describe(`MarketStore conformance: ${name}`, () => {
    let subject: MarketStoreUnderTest | undefined;
    const store = (): MarketStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    const query = (overrides: Partial<OfferQuery>): OfferQuery => ({
      verifiedOnly: false,
      heardSinceMs: T0 - 60_000,
      nowMs: T0,
      minFreeGpus: 1,
      sort: 'price',
      limit: 50,
      offset: 0,
      ...overrides,
    });

    it('stores a machine with all its GPUs free, updates it, lists a provider’s machines', async () => {
      const m = machine({ availableUntilMs: T0 + 86_400_000 });
      await store().addMachine(m);
      expect(await store().getMachine(m.id)).toEqual(m);
      expect(await store().freeGpus(m.id)).toBe(4);
      const updated = await store().updateMachine(m.id, {
        pricePerGpuHourMicros: 500_000n,
        listed: false,
        discountsBp: { day: 500, week: 1500, month: 2500 },
      });
      expect(updated).toEqual({
        ...m,
        pricePerGpuHourMicros: 500_000n,
        listed: false,
        discountsBp: { day: 500, week: 1500, month: 2500 },
      });
      expect((await store().listMachines(m.providerAccountId)).map((x) => x.id)).toEqual([m.id]);
      expect(await store().getMachine(newId('mch'))).toBeNull();
      expect(await store().updateMachine(newId('mch'), { listed: true })).toBeNull();
    });

    it('matches GPU names ignoring case, spaces, hyphens and underscores, and never a prefix', async () => {
      const tag = newId('g').replace(/[^A-Za-z0-9]/g, '');
      const m = machine({ gpuName: `RTX_${tag}_Ada` });
      await store().addMachine(m);
      const ids = async (gpuNames: string[]) =>
        (await store().searchOffers(query({ gpuNames }))).offers.map((o) => o.id);
      for (const spelling of [`rtx_${tag}_ada`, `RTX ${tag} Ada`, `rtx-${tag}-ADA`, `RTX${tag}ADA`.toLowerCase()])
        expect(await ids([spelling])).toEqual([m.id]);
      expect(await ids([`RTX_${tag}`])).toEqual([]);
    });

    it('finds offers by every filter, sorted and paged; unlisted, silent, expired and unverified machines are left out when asked', async () => {
      const gpu = `GPU_${newId('g')}`;
      const cheap = machine({ gpuName: gpu, pricePerGpuHourMicros: 300_000n, vramGb: 24, location: 'US' });
      const dear = machine({ gpuName: gpu, pricePerGpuHourMicros: 900_000n, vramGb: 80, location: 'DE' });
      const unverified = machine({
        gpuName: gpu,
        pricePerGpuHourMicros: 500_000n,
        verification: 'unverified',
        location: 'DE',
      });
      const unlisted = machine({ gpuName: gpu, listed: false });
      const silent = machine({ gpuName: gpu, lastHeartbeatMs: T0 - 3_600_000 });
      const expired = machine({ gpuName: gpu, availableUntilMs: T0 - 1 });
      for (const m of [cheap, dear, unverified, unlisted, silent, expired]) await store().addMachine(m);
      const ids = async (q: Partial<OfferQuery>) =>
        (await store().searchOffers(query({ gpuNames: [gpu], ...q }))).offers.map((o) => o.id);
      expect(await ids({})).toEqual([cheap.id, unverified.id, dear.id]);
      expect(await ids({ sort: '-price' })).toEqual([dear.id, unverified.id, cheap.id]);
      expect((await ids({ sort: '-vram' }))[0]).toBe(dear.id);
      expect(await ids({ verifiedOnly: true })).toEqual([cheap.id, dear.id]);
      expect(await ids({ minVramGb: 48 })).toEqual([dear.id]);
      expect(await ids({ maxPricePerGpuHourMicros: 500_000n })).toEqual([cheap.id, unverified.id]);
      expect(await ids({ locations: ['DE'] })).toEqual([unverified.id, dear.id]);
      expect(await ids({ minFreeGpus: 5 })).toEqual([]);
      const page = await store().searchOffers(query({ gpuNames: [gpu], limit: 1, offset: 1 }));
      expect(page.offers.map((o) => o.id)).toEqual([unverified.id]);
      expect(page.total).toBe(3);
      expect(page.offers[0]!.freeGpus).toBe(4);
    });

    it('computes reliability from the minutes heard over the window, and sorts offers by it', async () => {
      const gpu = `GPU_${newId('g')}`;
      const steady = machine({ gpuName: gpu, createdAtMs: T0 - 100 * 60_000 });
      const flaky = machine({ gpuName: gpu, createdAtMs: T0 - 100 * 60_000 });
      await store().addMachine(steady);
      await store().addMachine(flaky);
      const nowMinute = Math.floor(T0 / 60_000);
      for (let m = 0; m < 100; m++) await store().recordUptime(steady.id, nowMinute - m);
      for (let m = 0; m < 40; m++) await store().recordUptime(flaky.id, nowMinute - m);
      await store().recordUptime(flaky.id, nowMinute); // the same minute again changes nothing
      await store().refreshReliability(T0);
      expect((await store().getMachine(steady.id))!.reliabilityBp).toBe(10_000);
      expect((await store().getMachine(flaky.id))!.reliabilityBp).toBe(5_000);
      const ids = async (sort: OfferQuery['sort']) =>
        (await store().searchOffers(query({ gpuNames: [gpu], sort }))).offers.map((o) => o.id);
      expect(await ids('-reliability')).toEqual([steady.id, flaky.id]);
      expect(await ids('reliability')).toEqual([flaky.id, steady.id]);
    });

    it('places an instance on free GPUs and refuses one that needs more than are free', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 4 });
      await store().addMachine(m);
      const first = await store().place(instance(m, { gpuCount: 3 }));
      expect(first.ok).toBe(true);
      if (!first.ok) return;
      expect(first.instance.gpuIndexes).toEqual([0, 1, 2]);
      expect(first.instance.version).toBe(1);
      expect(await store().freeGpus(m.id)).toBe(1);
      expect(await store().place(instance(m, { gpuCount: 2 }))).toEqual({ ok: false, reason: 'gpus_taken' });
      expect((await store().searchOffers(query({ gpuNames: [m.gpuName], minFreeGpus: 2 }))).offers).toEqual([]);
      expect(await store().getInstance(first.instance.id)).toEqual(first.instance);
      expect(await store().getInstance(newId('inst'))).toBeNull();
    });

    it('never gives one GPU to two instances, however many are placed at once', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 8 });
      await store().addMachine(m);
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => store().place(instance(m, { gpuCount: 3 }))));
      const placed = outcomes.flatMap((o) => (o.ok ? [o.instance] : []));
      expect(placed.length).toBeGreaterThanOrEqual(1);
      expect(placed.length).toBeLessThanOrEqual(2);
      const held = placed.flatMap((i) => i.gpuIndexes);
      expect(new Set(held).size).toBe(held.length);
      expect(await store().freeGpus(m.id)).toBe(8 - held.length);
    });

    it('changes an instance by compare-and-set, releases and re-acquires its GPUs, and keeps its history', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 2 });
      await store().addMachine(m);
      const placed = await store().place(instance(m, { gpuCount: 2 }));
      if (!placed.ok) throw new Error('not placed');
      const running = await store().change(placed.instance.id, 1, {
        patch: { status: 'running', runningSinceMs: T0 + 1_000, updatedAtMs: T0 + 1_000 },
      });
      expect(running.ok && running.instance.version).toBe(2);
      expect(await store().change(placed.instance.id, 1, { patch: { status: 'stopped' } })).toEqual({
        ok: false,
        reason: 'stale',
      });
      const stopped = await store().change(placed.instance.id, 2, {
        patch: { status: 'stopped', desiredStatus: 'stopped', statusReason: 'user', updatedAtMs: T0 + 2_000 },
        gpus: 'release',
      });
      expect(stopped.ok && stopped.instance.gpuIndexes).toEqual([]);
      expect(await store().freeGpus(m.id)).toBe(2);
      const other = await store().place(instance(m, { gpuCount: 1 }));
      expect(other.ok).toBe(true);
      const refused = await store().change(placed.instance.id, 3, {
        patch: { desiredStatus: 'running', updatedAtMs: T0 + 3_000 },
        gpus: 'acquire',
      });
      expect(refused).toEqual({ ok: false, reason: 'gpus_taken' });
      // The refused change left nothing behind: same version, no GPUs, the other instance's GPU untouched.
      const after = (await store().getInstance(placed.instance.id))!;
      expect(after.version).toBe(3);
      expect(after.desiredStatus).toBe('stopped');
      expect(await store().freeGpus(m.id)).toBe(1);
      if (other.ok) await store().unplace(other.instance.id);
      expect(await store().getInstance(other.ok ? other.instance.id : '')).toBeNull();
      const restarted = await store().change(placed.instance.id, 3, {
        patch: { desiredStatus: 'running', status: 'pending', statusReason: null, updatedAtMs: T0 + 4_000 },
        gpus: 'acquire',
      });
      expect(restarted.ok && restarted.instance.gpuIndexes).toEqual([0, 1]);
      expect((await store().history(placed.instance.id)).map((e) => [e.status, e.desiredStatus, e.reason])).toEqual([
        ['pending', 'running', null],
        ['running', 'running', null],
        ['stopped', 'stopped', 'user'],
        ['pending', 'running', null],
      ]);
    });

    it('starts an instance on the very GPUs it had, or refuses: never on others', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 3 });
      await store().addMachine(m);
      const a = await store().place(instance(m, { gpuCount: 1 }));
      const b = await store().place(instance(m, { gpuCount: 1 }));
      if (!a.ok || !b.ok) throw new Error('not placed');
      expect(b.instance.gpuIndexes).toEqual([1]);
      await store().change(b.instance.id, 1, { patch: { status: 'stopped' }, gpus: 'release' });
      const c = await store().place(instance(m, { gpuCount: 1 }));
      expect(c.ok && c.instance.gpuIndexes).toEqual([1]);
      // GPU 2 is free, but b's container was made with GPU 1: b cannot start until GPU 1 is free again.
      expect(await store().change(b.instance.id, 2, { patch: { status: 'pending' }, gpus: 'acquire' })).toEqual({
        ok: false,
        reason: 'gpus_taken',
      });
      if (c.ok) await store().change(c.instance.id, 1, { patch: { status: 'stopped' }, gpus: 'release' });
      const started = await store().change(b.instance.id, 2, { patch: { status: 'pending' }, gpus: 'acquire' });
      expect(started.ok && started.instance.gpuIndexes).toEqual([1]);
    });

    it('tells which of some instance ids are asked to run (not stopped, not terminated): the SSH proxy keeps their ports only', async () => {
      const m = machine();
      await store().addMachine(m);
      const [a, b, c] = [
        await store().place(instance(m)),
        await store().place(instance(m)),
        await store().place(instance(m, { status: 'running' })),
      ];
      if (!a.ok || !b.ok || !c.ok) throw new Error('not placed');
      await store().change(b.instance.id, b.instance.version, {
        patch: { desiredStatus: 'terminated', status: 'terminated' },
        gpus: 'release',
      });
      await store().change(c.instance.id, c.instance.version, {
        patch: { desiredStatus: 'stopped', status: 'stopped' },
        gpus: 'release',
      });
      expect(await store().instancesAskedToRun([a.instance.id, b.instance.id, c.instance.id, newId('inst')])).toEqual(
        new Set([a.instance.id]),
      );
      expect(await store().instancesAskedToRun([])).toEqual(new Set());
    });

    it('counts an account’s pending rentals and finds those pending (or offline) since before a moment, oldest first', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 8 });
      await store().addMachine(m);
      const accountId = newId('acc');
      const old = await store().place(instance(m, { accountId, updatedAtMs: T0 - 60_000 }));
      const fresh = await store().place(instance(m, { accountId, updatedAtMs: T0 }));
      const running = await store().place(instance(m, { accountId, status: 'running', updatedAtMs: T0 - 120_000 }));
      const stopping = await store().place(
        instance(m, { accountId, desiredStatus: 'stopped', updatedAtMs: T0 - 120_000 }),
      );
      if (!old.ok || !fresh.ok || !running.ok || !stopping.ok) throw new Error('not placed');
      expect(await store().pendingCount(accountId)).toBe(2);
      expect(await store().pendingCount(newId('acc'))).toBe(0);
      const stale = (await store().staleInstances('pending', T0, 100)).filter((i) => i.accountId === accountId);
      expect(stale.map((i) => i.id)).toEqual([old.instance.id]);
      expect(stale[0]!.gpuIndexes).toHaveLength(1);
      const offline = await store().place(instance(m, { accountId, status: 'offline', updatedAtMs: T0 - 60_000 }));
      if (!offline.ok) throw new Error('not placed');
      expect(
        (await store().staleInstances('offline', T0, 100)).filter((i) => i.accountId === accountId).map((i) => i.id),
      ).toEqual([offline.instance.id]);
      expect(
        (await store().staleInstances('offline', T0 - 60_000, 100)).filter((i) => i.accountId === accountId),
      ).toEqual([]);
    });

    it('keeps a machine’s announced price rise and applies those due, moving their prices and discounts into the listing', async () => {
      const due = machine({
        priceRise: { pricePerGpuHourMicros: 4_000_000n, discountsBp: { day: 0, week: 500, month: 1000 }, atMs: T0 },
      });
      const later = machine({
        priceRise: {
          pricePerGpuHourMicros: 5_000_000n,
          discountsBp: { day: 100, week: 200, month: 300 },
          atMs: T0 + 1,
        },
      });
      await store().addMachine(due);
      await store().addMachine(later);
      expect((await store().getMachine(later.id))!.priceRise).toEqual(later.priceRise);
      await store().applyPriceRises(T0);
      expect(await store().getMachine(due.id)).toMatchObject({
        pricePerGpuHourMicros: 4_000_000n,
        discountsBp: { day: 0, week: 500, month: 1000 },
        priceRise: null,
      });
      expect(await store().getMachine(later.id)).toMatchObject({
        pricePerGpuHourMicros: 400_000n,
        discountsBp: { day: 1000, week: 2000, month: 3000 },
        priceRise: later.priceRise,
      });
      const cut = await store().updateMachine(later.id, { pricePerGpuHourMicros: 300_000n, priceRise: null });
      expect(cut).toMatchObject({ pricePerGpuHourMicros: 300_000n, priceRise: null });
      await store().applyPriceRises(T0 + 10);
      expect((await store().getMachine(later.id))!.pricePerGpuHourMicros).toBe(300_000n);
    });

    it('lists an account’s instances newest first, a machine’s live ones, and the ones the sweeper must see', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 4 });
      await store().addMachine(m);
      const accountId = newId('acc');
      const a = await store().place(instance(m, { accountId, createdAtMs: T0 }));
      const b = await store().place(
        instance(m, { accountId, createdAtMs: T0 + 1, status: 'running', runningSinceMs: T0 }),
      );
      const c = await store().place(
        instance(m, { createdAtMs: T0 + 2, status: 'terminated', pendingChargeMicros: 5n }),
      );
      if (!a.ok || !b.ok || !c.ok) throw new Error('not placed');
      expect((await store().listInstances(accountId, 10, 0)).map((i) => i.id)).toEqual([b.instance.id, a.instance.id]);
      expect((await store().listInstances(accountId, 1, 1)).map((i) => i.id)).toEqual([a.instance.id]);
      expect((await store().machineInstances(m.id)).map((i) => i.id)).toEqual([a.instance.id, b.instance.id]);
      const active = (await store().activeInstances(1000)).map((i) => i.id);
      expect(active).toContain(b.instance.id);
      expect(active).toContain(c.instance.id);
      expect(active).not.toContain(a.instance.id);
      expect((await store().runningInstances(accountId)).map((i) => i.id)).toEqual([b.instance.id]);
      expect((await store().wantedRunning(accountId)).map((i) => i.id).sort()).toEqual(
        [a.instance.id, b.instance.id].sort(),
      );
      const stopped = await store().change(a.instance.id, a.instance.version, {
        patch: { desiredStatus: 'stopped', status: 'stopped' },
        gpus: 'release',
      });
      expect(stopped.ok).toBe(true);
      expect((await store().wantedRunning(accountId)).map((i) => i.id)).toEqual([b.instance.id]);
    });

    it('keeps a rental’s minute price and hold check time, and finds the holds due for their check, most overdue first', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 4 });
      await store().addMachine(m);
      const due = T0 - 1_000_000;
      const late = await store().place(
        instance(m, {
          pricingType: 'week',
          termMs: 7 * 86_400_000,
          minutePriceMicros: 12_345n,
          holdId: newId('rhold'),
          holdRenewAtMs: due + 10,
        }),
      );
      const later = await store().place(
        instance(m, { pricingType: 'day', termMs: 86_400_000, holdId: newId('rhold'), holdRenewAtMs: due }),
      );
      const notYet = await store().place(
        instance(m, { pricingType: 'day', termMs: 86_400_000, holdId: newId('rhold'), holdRenewAtMs: T0 + 1 }),
      );
      if (!late.ok || !later.ok || !notYet.ok) throw new Error('not placed');
      expect(late.instance).toMatchObject({ minutePriceMicros: 12_345n, holdRenewAtMs: due + 10 });
      const ids = (await store().holdsToRenew(T0, 1000)).map((i) => i.id);
      expect(ids.indexOf(later.instance.id)).toBeLessThan(ids.indexOf(late.instance.id));
      expect(ids).not.toContain(notYet.instance.id);
      const renewed = await store().change(late.instance.id, late.instance.version, {
        patch: { holdRenewAtMs: T0 + 5 },
      });
      expect(renewed.ok && renewed.instance.holdRenewAtMs).toBe(T0 + 5);
      expect((await store().holdsToRenew(T0, 1000)).map((i) => i.id)).not.toContain(late.instance.id);
    });
    it('keeps burst orders with their tiers, lists an account’s newest first, finds their rentals, updates and removes them', async () => {
      const m = machine({ gpuName: `GPU_${newId('g')}`, gpuCount: 4 });
      await store().addMachine(m);
      const accountId = newId('acc');
      const order = {
        id: newId('burst'),
        accountId,
        dockerImage: 'ubuntu:24.04',
        tiers: [
          { gpuName: m.gpuName, maxPricePerGpuHourMicros: null },
          { gpuName: 'H100_80GB', maxPricePerGpuHourMicros: 2_500_000n },
        ],
        gpuCount: 3,
        diskGb: 80,
        pricingType: 'hour' as const,
        volumeId: null,
        desiredStatus: 'running' as const,
        createdAtMs: T0,
        updatedAtMs: T0,
      };
      const later = { ...order, id: newId('burst'), createdAtMs: T0 + 1 };
      await store().addBurstOrder(order);
      await store().addBurstOrder(later);
      expect(await store().getBurstOrder(order.id)).toEqual(order);
      expect(await store().getBurstOrder(newId('burst'))).toBeNull();
      expect((await store().listBurstOrders(accountId, 10, 0)).map((o) => o.id)).toEqual([later.id, order.id]);
      expect((await store().listBurstOrders(accountId, 1, 1)).map((o) => o.id)).toEqual([order.id]);
      const a = await store().place(instance(m, { accountId, burstOrderId: order.id, gpuCount: 2 }));
      await store().place(instance(m, { accountId, gpuCount: 1 }));
      expect((await store().orderInstances(order.id)).map((i) => [i.id, i.burstOrderId, i.gpuIndexes.length])).toEqual([
        [a.ok && a.instance.id, order.id, 2],
      ]);
      await store().updateBurstOrder(order.id, { desiredStatus: 'stopped', updatedAtMs: T0 + 5 });
      expect(await store().getBurstOrder(order.id)).toEqual({
        ...order,
        desiredStatus: 'stopped',
        updatedAtMs: T0 + 5,
      });
      await store().removeBurstOrder(later.id);
      expect(await store().getBurstOrder(later.id)).toBeNull();
    });

    const newVolume = (accountId: string, sizeGb = 50) =>
      store().volumes.create({ accountId, name: 'data', sizeGb, priceMicrosPerGbMonth: 100_000n, createdAtMs: T0 });
    /** A volume's first settlement on machine `m`, charging 7 micro-USD. */
    const firstVolumeSettlement = (
      volumeId: number,
      m: MachineRecord,
      providerMicros: bigint | null,
      atMs: number,
    ) => ({
      recorded: {
        volumeId,
        seq: 1,
        machineId: m.id,
        providerAccountId: m.providerAccountId,
        chargedMicros: 7n,
        providerMicros,
        atMs,
      },
    });

    it('keeps volumes: created unpinned, pinned by the first placement, refused on another machine, listed newest first', async () => {
      const [a, b] = [machine(), machine()];
      await store().addMachine(a);
      await store().addMachine(b);
      const accountId = newId('acc');
      const volume = await newVolume(accountId);
      expect(volume).toMatchObject({
        accountId,
        sizeGb: 50,
        machineId: null,
        deletedAtMs: null,
        settledUntilMs: T0,
        chargedMicros: 0n,
        settleSeq: 0,
        version: 1,
      });
      const second = await newVolume(accountId, 10);
      expect((await store().volumes.list(accountId, 10, 0)).map((v) => v.id)).toEqual([second.id, volume.id]);
      expect((await store().volumes.list(accountId, 1, 1)).map((v) => v.id)).toEqual([volume.id]);

      const placed = await store().place(instance(a, { accountId, volumeId: volume.id }));
      expect(placed.ok && placed.instance.volumeId).toBe(volume.id);
      expect(await store().volumes.get(volume.id)).toMatchObject({
        machineId: a.id,
        providerAccountId: a.providerAccountId,
      });
      expect((await store().volumes.onMachine(a.id)).map((v) => v.id)).toEqual([volume.id]);
      expect(await store().place(instance(a, { accountId, volumeId: volume.id }))).toMatchObject({ ok: true });
      expect(await store().place(instance(b, { accountId, volumeId: volume.id, gpuCount: 4 }))).toEqual({
        ok: false,
        reason: 'volume_elsewhere',
      });
      expect(await store().freeGpus(b.id)).toBe(4);
      expect(await store().place(instance(b, { accountId, volumeId: 999_999 }))).toEqual({
        ok: false,
        reason: 'volume_elsewhere',
      });
    });

    it('deletes a volume only when no live instance has it, once; a deleted volume is never attached again', async () => {
      const m = machine();
      await store().addMachine(m);
      const accountId = newId('acc');
      const volume = await newVolume(accountId);
      const placed = await store().place(instance(m, { accountId, volumeId: volume.id }));
      if (!placed.ok) throw new Error('not placed');
      expect(await store().volumes.remove(volume.id, T0 + 10)).toEqual({ ok: false, reason: 'in_use' });
      const stopped = await store().change(placed.instance.id, placed.instance.version, {
        patch: { desiredStatus: 'stopped', status: 'stopped' },
        gpus: 'release',
      });
      expect(await store().volumes.remove(volume.id, T0 + 10)).toEqual({ ok: false, reason: 'in_use' });
      if (!stopped.ok) throw new Error('not stopped');
      await store().change(placed.instance.id, stopped.instance.version, {
        patch: { desiredStatus: 'terminated', status: 'terminated' },
      });
      const removed = await store().volumes.remove(volume.id, T0 + 20);
      expect(removed).toMatchObject({ ok: true, volume: { id: volume.id, deletedAtMs: T0 + 20 } });
      expect(await store().volumes.remove(volume.id, T0 + 30)).toMatchObject({
        ok: true,
        volume: { deletedAtMs: T0 + 20 },
      });
      expect(await store().volumes.onMachine(m.id)).toEqual([]);
      expect(await store().place(instance(m, { accountId, volumeId: volume.id }))).toEqual({
        ok: false,
        reason: 'volume_elsewhere',
      });
      expect(await store().volumes.remove(999_999, T0)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('pins a volume to one machine however many placements race for it, and a racing delete never strands one', async () => {
      const machines = [machine({ gpuCount: 8 }), machine({ gpuCount: 8 })];
      for (const m of machines) await store().addMachine(m);
      const accountId = newId('acc');
      const volume = await newVolume(accountId);
      const outcomes = await Promise.all([
        ...Array.from({ length: 12 }, (_, i) =>
          store().place(instance(machines[i % 2]!, { accountId, volumeId: volume.id })),
        ),
        store().volumes.remove(volume.id, T0 + 1),
      ]);
      const placed = outcomes.slice(0, 12).flatMap((o) => ('instance' in o && o.ok ? [o.instance] : []));
      const removed = outcomes[12]!;
      if (removed.ok) expect(placed).toEqual([]);
      else expect(new Set(placed.map((i) => i.machineId)).size).toBe(1);
      const after = (await store().volumes.get(volume.id))!;
      for (const i of placed) expect(i.machineId).toBe(after.machineId);
    });

    it('settles a volume by compare-and-set, keeps its settlements, and lists the ones left to bill', async () => {
      const m = machine();
      await store().addMachine(m);
      const accountId = newId('acc');
      const volume = await newVolume(accountId);
      await store().place(instance(m, { accountId, volumeId: volume.id }));
      const pinned = (await store().volumes.get(volume.id))!;
      const recorded = await store().volumes.change(volume.id, pinned.version, {
        patch: { settleSeq: 1, settledUntilMs: T0 + 60_000, chargedMicros: 7n, pendingChargeMicros: 7n },
        settlement: firstVolumeSettlement(volume.id, m, null, T0 + 60_000),
      });
      expect(recorded).toMatchObject({
        settleSeq: 1,
        settledUntilMs: T0 + 60_000,
        chargedMicros: 7n,
        pendingChargeMicros: 7n,
        version: pinned.version + 1,
      });
      expect(await store().volumes.change(volume.id, pinned.version, { patch: { chargedMicros: 1n } })).toBeNull();
      const billable = async (settledBeforeMs: number) =>
        (await store().volumes.billable(settledBeforeMs, 10_000)).map((v) => v.id);
      expect(await billable(T0 + 60_000)).toContain(volume.id); // a settlement left to post
      expect(await store().providerEarnings(m.providerAccountId, T0, T0 + 120_000)).toEqual([]);
      await store().volumes.change(volume.id, recorded!.version, {
        patch: { pendingChargeMicros: 0n },
        settlement: { posted: { seq: 1, providerMicros: 6n } },
      });
      expect(await store().providerEarnings(m.providerAccountId, T0, T0 + 120_000)).toEqual([
        { dayStartMs: dayOf(T0 + 60_000), machineId: m.id, chargedMicros: 7n, providerMicros: 6n, settlements: 1 },
      ]);
      expect(await billable(T0 + 60_000)).not.toContain(volume.id); // settled up to then
      expect(await billable(T0 + 120_000)).toContain(volume.id);
      const [attached] = await store().machineInstances(m.id);
      await store().change(attached!.id, attached!.version, {
        patch: { desiredStatus: 'terminated', status: 'terminated' },
      });
      await store().volumes.remove(volume.id, T0 + 90_000);
      expect(await billable(T0)).toContain(volume.id); // deleted, not yet charged up to its deletion
      const last = (await store().volumes.get(volume.id))!;
      await store().volumes.change(volume.id, last.version, { patch: { settledUntilMs: T0 + 90_000 } });
      expect(await billable(T0 + 10 ** 9)).not.toContain(volume.id);
    });

    it("sums a provider's posted settlements by UTC day and machine, rentals and volumes together", async () => {
      const [m, other] = [machine(), machine()];
      for (const each of [m, other]) await store().addMachine(each);
      const accountId = newId('acc');
      const volume = await newVolume(accountId);
      const placed = await store().place(instance(m, { accountId, volumeId: volume.id }));
      if (!placed.ok) throw new Error('not placed');
      const day = dayOf(T0) + DAY;
      // Rentals: two settlements on one day, one the next, one not posted yet (no share: not earned).
      let version = placed.instance.version;
      const settle = async (seq: number, atMs: number, chargedMicros: bigint, providerMicros: bigint | null) => {
        const changed = await store().change(placed.instance.id, version, {
          patch: {},
          settlement: {
            recorded: {
              instanceId: placed.instance.id,
              seq,
              machineId: m.id,
              providerAccountId: m.providerAccountId,
              chargedMicros,
              providerMicros,
              atMs,
            },
          },
        });
        if (!changed.ok) throw new Error('stale');
        version = changed.instance.version;
      };
      await settle(1, day + 10 * HOUR, 10n, 8n);
      await settle(2, day + 20 * HOUR, 5n, 4n);
      await settle(3, day + DAY + HOUR, 3n, 2n);
      await settle(4, day + DAY + 2 * HOUR, 9n, null);
      // A volume's settlement on the first day joins that day's group of its machine.
      const pinned = (await store().volumes.get(volume.id))!;
      await store().volumes.change(volume.id, pinned.version, {
        patch: { settleSeq: 1 },
        settlement: firstVolumeSettlement(volume.id, m, 6n, day + 23 * HOUR),
      });
      const byDay = (groups: EarningsGroup[]) => [...groups].sort((a, b) => a.dayStartMs - b.dayStartMs);
      expect(byDay(await store().providerEarnings(m.providerAccountId, day, day + 2 * DAY))).toEqual([
        { dayStartMs: day, machineId: m.id, chargedMicros: 22n, providerMicros: 18n, settlements: 3 },
        { dayStartMs: day + DAY, machineId: m.id, chargedMicros: 3n, providerMicros: 2n, settlements: 1 },
      ]);
      // [from, to): a settlement at `to` is out, one at `from` in.
      expect(await store().providerEarnings(m.providerAccountId, day + 20 * HOUR, day + DAY + HOUR)).toEqual([
        { dayStartMs: day, machineId: m.id, chargedMicros: 12n, providerMicros: 10n, settlements: 2 },
      ]);
      expect(await store().providerEarnings(other.providerAccountId, day, day + 2 * DAY)).toEqual([]);
      expect(await store().providerEarnedMicros(m.providerAccountId, day + DAY)).toBe(18n);
      expect(await store().providerEarnedMicros(m.providerAccountId, day + 10 * DAY)).toBe(20n);
      expect(await store().providerEarnedMicros(m.providerAccountId, day)).toBe(0n);
      expect(await store().providerEarnedMicros(other.providerAccountId, day + 10 * DAY)).toBe(0n);
    });
  });
}
