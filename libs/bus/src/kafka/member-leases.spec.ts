import { MemoryHotStore } from '@perp/cache';
import { silentLogger } from '../logger';
import { type LeaseStore, MemberLeases } from './member-leases';

const LEASE_MS = 1_000;
const PERIOD_MS = 250;
const GROUP = 'g';

describe('MemberLeases: a failure detector for group members', () => {
  let store: MemoryHotStore;
  const open: MemberLeases[] = [];

  beforeEach(() => {
    jest.useFakeTimers();
    store = new MemoryHotStore();
  });

  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    await store.close();
    jest.useRealTimers();
  });

  const member = (id: string, over: Partial<{ store: LeaseStore }> = {}) => {
    const evicted: string[] = [];
    const leases = new MemberLeases(
      GROUP,
      { store: over.store ?? store, leaseMs: LEASE_MS, periodMs: PERIOD_MS },
      async (m) => {
        evicted.push(m);
        return 'evicted';
      },
      silentLogger,
    );
    open.push(leases);
    leases.joined(id);
    return { leases, evicted };
  };
  const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

  it('a live member keeps its lease: nobody is evicted while every member renews', async () => {
    const a = member('a');
    const b = member('b');
    await advance(10 * LEASE_MS);
    expect(a.evicted).toEqual([]);
    expect(b.evicted).toEqual([]);
    expect(Object.keys(await store.hgetall(`kafka-members:${GROUP}`)).sort()).toEqual(['a', 'b']);
  });

  it('a member that stops renewing is evicted once, by one survivor, and leaves the member set', async () => {
    const a = member('a');
    const b = member('b');
    const dead = member('dead');
    await advance(PERIOD_MS);
    await dead.leases.close(); // as a kill -9 would, but close also removes its entry: put it back
    await store.hset(`kafka-members:${GROUP}`, { dead: '0' });
    await advance(LEASE_MS + 3 * PERIOD_MS);
    expect([...a.evicted, ...b.evicted]).toEqual(['dead']);
    expect(Object.keys(await store.hgetall(`kafka-members:${GROUP}`)).sort()).toEqual(['a', 'b']);
  });

  it('a lease missing on one watch only (the store catching up) is not an eviction', async () => {
    const a = member('a');
    member('b');
    await advance(PERIOD_MS);
    await store.del(`kafka-lease:${GROUP}:b`); // b renews at its next period
    await advance(3 * PERIOD_MS);
    expect(a.evicted).toEqual([]);
  });

  it('members that never registered a lease are left to the session timeout', async () => {
    const a = member('a');
    await advance(3 * LEASE_MS);
    expect(a.evicted).toEqual([]);
  });

  it('is not fresh after a stall longer than half a lease (the subscription then asks the coordinator)', async () => {
    let stalled = false;
    const stalling: LeaseStore = {
      get: (k) => store.get(k),
      set: (k, v, o) => (stalled ? new Promise<void>(() => undefined) : store.set(k, v, o)),
      setIfAbsent: (k, v, o) => store.setIfAbsent(k, v, o),
      del: (...k) => store.del(...k),
      hset: (k, f) => store.hset(k, f),
      hgetall: (k) => store.hgetall(k),
      hdel: (k, ...f) => store.hdel(k, ...f),
    };
    const a = member('a', { store: stalling });
    await advance(PERIOD_MS);
    expect(a.leases.fresh()).toBe(true);
    stalled = true;
    await advance(LEASE_MS);
    expect(a.leases.fresh()).toBe(false);
  });

  it('a rejoin under a new member id drops the old lease; close drops the current one', async () => {
    const a = member('a1');
    await advance(PERIOD_MS);
    a.leases.joined('a2');
    await advance(PERIOD_MS);
    expect(await store.get(`kafka-lease:${GROUP}:a1`)).toBeUndefined();
    expect(await store.get(`kafka-lease:${GROUP}:a2`)).toBeDefined();
    expect(Object.keys(await store.hgetall(`kafka-members:${GROUP}`))).toEqual(['a2']);
    await a.leases.close();
    expect(await store.get(`kafka-lease:${GROUP}:a2`)).toBeUndefined();
    expect(await store.hgetall(`kafka-members:${GROUP}`)).toEqual({});
  });
});
