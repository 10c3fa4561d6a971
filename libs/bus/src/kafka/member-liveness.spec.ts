import { silentLogger } from '../logger';
import { MemberLiveness, type PresenceStore } from './member-liveness';

const PERIOD_MS = 250;
const GROUP = 'g';

/** Processes and their connections in memory: a kill is `live.delete(owner)`. */
class FakePresence implements PresenceStore {
  static readonly live = new Set<string>();
  static readonly members = new Map<string, Record<string, string>>();
  static readonly claims = new Set<string>();
  /** Lists of live processes taken, by every watcher. */
  static lists = 0;
  up = true;
  constructor(readonly owner: string) {
    FakePresence.live.add(owner);
  }
  connected() {
    return this.up;
  }
  async liveOwners(_since: number) {
    FakePresence.lists++;
    return this.up ? new Set(FakePresence.live) : undefined;
  }
  async register(groupId: string, memberId: string) {
    FakePresence.members.set(groupId, { ...FakePresence.members.get(groupId), [memberId]: this.owner });
  }
  async members(groupId: string) {
    return { ...FakePresence.members.get(groupId) };
  }
  async forget(groupId: string, memberId: string) {
    const { [memberId]: _gone, ...rest } = FakePresence.members.get(groupId) ?? {};
    FakePresence.members.set(groupId, rest);
  }
  async claim(groupId: string, memberId: string) {
    const key = `${groupId}/${memberId}`;
    if (FakePresence.claims.has(key)) return false;
    FakePresence.claims.add(key);
    return true;
  }
  async close() {
    FakePresence.live.delete(this.owner);
  }
}

describe('MemberLiveness: a failure detector for group members', () => {
  const open: MemberLiveness[] = [];

  beforeEach(() => {
    jest.useFakeTimers();
    FakePresence.live.clear();
    FakePresence.members.clear();
    FakePresence.claims.clear();
    FakePresence.lists = 0;
  });

  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
    jest.useRealTimers();
  });

  const member = (process: string, memberId = process) => {
    const presence = new FakePresence(process);
    const evicted: string[] = [];
    const liveness = new MemberLiveness(
      GROUP,
      presence,
      PERIOD_MS,
      async (m) => {
        evicted.push(m);
        return 'evicted';
      },
      silentLogger,
    );
    open.push(liveness);
    liveness.joined(memberId);
    return { presence, liveness, evicted };
  };
  const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);
  const listed = async () => Object.keys(FakePresence.members.get(GROUP) ?? {}).sort();

  it('nobody is evicted while every process is connected, however slow it is', async () => {
    const a = member('a');
    const b = member('b');
    await advance(40 * PERIOD_MS);
    expect([...a.evicted, ...b.evicted]).toEqual([]);
    expect(await listed()).toEqual(['a', 'b']);
  });

  it("a killed process's member is evicted once, by one survivor, and leaves the list", async () => {
    const a = member('a');
    const b = member('b');
    member('dead');
    await advance(PERIOD_MS);
    FakePresence.live.delete('dead'); // kill -9: the kernel closes its connection
    await advance(2 * PERIOD_MS);
    expect([...a.evicted, ...b.evicted]).toEqual(['dead']);
    expect(await listed()).toEqual(['a', 'b']);
  });

  it('a watcher that cannot see the store judges nobody, and says it may have been evicted', async () => {
    const a = member('a');
    member('b');
    await advance(PERIOD_MS);
    expect(a.liveness.fresh()).toBe(true);
    a.presence.up = false;
    FakePresence.live.delete('b');
    await advance(4 * PERIOD_MS);
    expect(a.evicted).toEqual([]);
    expect(a.liveness.fresh()).toBe(false);
  });

  it('a rejoin under a new member id replaces the old entry; close removes the current one', async () => {
    const a = member('a', 'a1');
    await advance(PERIOD_MS);
    a.liveness.joined('a2');
    await advance(PERIOD_MS);
    expect(await listed()).toEqual(['a2']);
    await a.liveness.close();
    expect(await listed()).toEqual([]);
  });

  it('close waits for an eviction in flight: nothing of the member is still at work after it', async () => {
    let finish = () => {};
    const evictions: string[] = [];
    const liveness = new MemberLiveness(
      GROUP,
      new FakePresence('a'),
      PERIOD_MS,
      (m) =>
        new Promise((resolve) => {
          evictions.push(m);
          finish = () => resolve('evicted');
        }),
      silentLogger,
    );
    liveness.joined('a');
    member('dead');
    await advance(PERIOD_MS);
    FakePresence.live.delete('dead');
    await advance(2 * PERIOD_MS);
    expect(evictions).toEqual(['dead']);
    let closed = false;
    const closing = liveness.close().then(() => (closed = true));
    await advance(PERIOD_MS);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(await listed()).toEqual([]);
  });

  it("one process's groups are watched in one round: one list of connections judges them all", async () => {
    const presence = new FakePresence('a');
    const evicted: string[] = [];
    for (const group of ['g1', 'g2', 'g3']) {
      const liveness = new MemberLiveness(
        group,
        presence,
        PERIOD_MS,
        async (m) => {
          evicted.push(`${group}/${m}`);
          return 'evicted';
        },
        silentLogger,
      );
      open.push(liveness);
      liveness.joined(`${group}-a`);
      await new FakePresence('dead').register(group, `${group}-dead`);
    }
    FakePresence.live.delete('dead');
    await advance(4 * PERIOD_MS);
    expect(FakePresence.lists).toBe(4);
    expect(evicted.sort()).toEqual(['g1/g1-dead', 'g2/g2-dead', 'g3/g3-dead']);
  });
});
