import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { Cluster } from 'kafkajs';
import type { BusLogger } from '../bus';
import { errorText } from '../logger';

/**
 * Where group members say which process holds them, and which processes are alive: a process is
 * alive while its connection to the store is open. The kernel closes a killed process's sockets,
 * so a kill -9 shows at once; a process that is merely slow (a GC pause, a long synchronous turn,
 * a starved CPU) keeps its connection and is never suspected. A hung process, or a machine that
 * vanished without closing its sockets, is left to the group's session timeout.
 */
export interface PresenceStore {
  /** This process's name among the live ones. */
  readonly owner: string;
  /** False while this process's own connection is down (it may be suspected meanwhile). */
  connected(): boolean;
  /**
   * Names of the processes connected at some time at or after `since` (ms since the epoch);
   * undefined while this process cannot tell.
   */
  liveOwners(since: number): Promise<ReadonlySet<string> | undefined>;
  /** Records that `memberId` of `groupId` belongs to this process. */
  register(groupId: string, memberId: string): Promise<void>;
  /** memberId -> owner, for the members that registered. */
  members(groupId: string): Promise<Record<string, string>>;
  forget(groupId: string, memberId: string): Promise<void>;
  /** True for the one caller that may evict `memberId` (the others would get UNKNOWN_MEMBER_ID). */
  claim(groupId: string, memberId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Removes `memberId` from the group; 'gone' when the coordinator no longer knows it. */
export type Evict = (memberId: string) => Promise<'evicted' | 'gone'>;

/**
 * A failure detector faster than the group's session timeout. Each member lists itself under its
 * process's name; every member watches the others: one whose process was not connected when the
 * list of connections was taken, after the member list was read (so a member that registered
 * through its connection is never judged by an older list), is dead, and one survivor removes it
 * with a LeaveGroup on its behalf, so the coordinator rebalances at once instead of
 * after the session timeout. A live member evicted by mistake (its own connection to the store
 * dropped) loses its partitions at its next heartbeat and rejoins with a new member id; while its
 * connection is down the subscription confirms its membership with a heartbeat before delivering.
 *
 * Only members that registered are ever evicted: one that did not (an older version, a store that
 * restarted and lost the list) is left to the session timeout.
 */
export class MemberLiveness {
  private memberId?: string;
  private round?: WatchRound;
  /** Evictions in flight by member: close() waits for them (a kafkajs request retries after its caller left). */
  private readonly evicting = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly groupId: string,
    private readonly presence: PresenceStore,
    private readonly periodMs: number,
    private readonly evict: Evict,
    private readonly logger: BusLogger,
  ) {}

  /** After every join: the member id this process now holds (a rejoin gets a new one). */
  joined(memberId: string): void {
    if (this.closed || memberId === this.memberId) return;
    const previous = this.memberId;
    this.memberId = memberId;
    void this.safely(async () => {
      if (previous) await this.presence.forget(this.groupId, previous);
      await this.presence.register(this.groupId, memberId);
    });
    this.round ??= WatchRound.of(this.presence, this.periodMs).add(this);
  }

  /** False when others may have evicted this member (its connection to the store is down). */
  fresh(): boolean {
    return this.presence.connected();
  }

  /** Stops watching and removes this member's entry (after the member left the group). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.round?.remove(this);
    await Promise.all(this.evicting.values());
    const me = this.memberId;
    if (me) await this.safely(() => this.presence.forget(this.groupId, me));
  }

  /** @internal This round's list of the group's members; undefined when there is nothing to judge. */
  async listed(): Promise<Record<string, string> | undefined> {
    if (this.closed || !this.memberId) return undefined;
    try {
      return await this.presence.members(this.groupId);
    } catch (e) {
      this.warn(`member watch failed: ${errorText(e)}`);
      return undefined;
    }
  }

  /** @internal Evicts the listed members whose process was not connected (`live`, taken after the list). */
  async judge(members: Record<string, string>, live: ReadonlySet<string>): Promise<void> {
    const me = this.memberId;
    if (this.closed || !me) return;
    try {
      for (const [member, owner] of Object.entries(members)) {
        if (member === me || live.has(owner)) continue;
        // Not awaited: a coordinator slow to answer never holds up the watches.
        if (this.evicting.has(member) || !(await this.presence.claim(this.groupId, member))) continue;
        this.evicting.set(
          member,
          this.remove(member).finally(() => this.evicting.delete(member)),
        );
      }
    } catch (e) {
      this.warn(`member watch failed: ${errorText(e)}`);
    }
  }

  /** @internal */
  warn(text: string): void {
    this.logger.warn(`group ${this.groupId}: ${text}`);
  }

  private async remove(memberId: string): Promise<void> {
    const began = Date.now();
    await this.safely(async () => {
      const outcome = await this.evict(memberId);
      this.logger.log(
        `group ${this.groupId}: member ${memberId}'s process is gone: ${outcome === 'evicted' ? 'evicted' : 'already left'} (${Date.now() - began} ms)`,
      );
      await this.presence.forget(this.groupId, memberId);
    });
  }

  private async safely(f: () => Promise<void>): Promise<void> {
    try {
      await f();
    } catch (e) {
      this.warn(`member liveness: ${errorText(e)}`);
    }
  }
}

/**
 * The watches of one process's members (one per consumer group) run together, every `periodMs`:
 * their member lists are read at once (one round trip with an auto-pipelining client), then one
 * list of connections judges them all. Watched apart, each group read its list and the connections
 * on its own timer: a process of four groups made 32 store round trips a second at rest.
 */
class WatchRound {
  private static readonly rounds = new WeakMap<PresenceStore, Map<number, WatchRound>>();
  private readonly watchers = new Set<MemberLiveness>();
  private timer?: NodeJS.Timeout;
  private running = false;

  private constructor(
    private readonly presence: PresenceStore,
    private readonly periodMs: number,
  ) {}

  static of(presence: PresenceStore, periodMs: number): WatchRound {
    let byPeriod = WatchRound.rounds.get(presence);
    if (!byPeriod) WatchRound.rounds.set(presence, (byPeriod = new Map()));
    let round = byPeriod.get(periodMs);
    if (!round) byPeriod.set(periodMs, (round = new WatchRound(presence, periodMs)));
    return round;
  }

  add(watcher: MemberLiveness): this {
    this.watchers.add(watcher);
    if (!this.timer) {
      this.timer = setInterval(() => void this.run(), this.periodMs);
      this.timer.unref?.();
    }
    return this;
  }

  remove(watcher: MemberLiveness): void {
    this.watchers.delete(watcher);
    if (this.watchers.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const readAt = Date.now();
      const watchers = [...this.watchers];
      const lists = await Promise.all(watchers.map((w) => w.listed()));
      if (lists.every((l) => l === undefined)) return;
      // Taken after the lists were read: a member that registered through its connection is
      // never judged by an older list of connections.
      let live: ReadonlySet<string> | undefined;
      try {
        live = await this.presence.liveOwners(readAt);
      } catch (e) {
        for (const w of watchers) w.warn(`member watch failed: ${errorText(e)}`);
      }
      if (!live) return;
      await Promise.all(watchers.map((w, i) => (lists[i] ? w.judge(lists[i]!, live) : undefined)));
    } finally {
      this.running = false;
    }
  }
}

export interface RedisPresenceOptions {
  /** Key and connection-name prefix (a deployment's, e.g. `perp:devnet:`). */
  prefix: string;
  /**
   * A process's connection must be up this long before it judges others (after a store restart
   * every client reconnects at its own pace; ioredis waits up to 2 s between attempts).
   */
  settleMs?: number;
}

/**
 * Presence on Redis: one connection per process, named (CLIENT SETNAME, restored by ioredis on
 * every reconnect); CLIENT LIST names the live ones; members in a hash per group.
 */
export class RedisPresence implements PresenceStore {
  readonly owner: string;
  private readyAt = 0;

  private constructor(
    private readonly client: Redis,
    private readonly options: RedisPresenceOptions,
    owner: string,
  ) {
    this.owner = owner;
    client.on('ready', () => (this.readyAt = Date.now()));
    client.on('error', () => undefined); // reconnects on its own; connected() says it is down
  }

  static async connect(url: string, options: RedisPresenceOptions): Promise<RedisPresence> {
    const owner = `${options.prefix}bus:${randomUUID()}`.replace(/\s/g, '');
    // Auto-pipelining: a watch round's member lists (one per group) share one round trip.
    const client = new Redis(url, {
      lazyConnect: true,
      connectionName: owner,
      maxRetriesPerRequest: 1,
      enableAutoPipelining: true,
    });
    const presence = new RedisPresence(client, options, owner);
    await client.connect();
    presence.readyAt = Date.now();
    return presence;
  }

  connected(): boolean {
    return this.client.status === 'ready';
  }

  // A list taken now is taken after `since`; the process's watch round asks once per period.
  liveOwners(_since: number): Promise<ReadonlySet<string> | undefined> {
    if (!this.connected() || Date.now() - this.readyAt < (this.options.settleMs ?? 3_000))
      return Promise.resolve(undefined);
    return this.listOwners();
  }

  private async listOwners(): Promise<ReadonlySet<string> | undefined> {
    const list = (await this.client.call('CLIENT', 'LIST', 'TYPE', 'normal')) as string;
    const owners = new Set<string>();
    for (const line of list.split('\n')) {
      const name = / name=(\S*)/.exec(line)?.[1];
      if (name) owners.add(name);
    }
    // Our own name missing: the answer is not about the connections we think of.
    return owners.has(this.owner) ? owners : undefined;
  }

  async register(groupId: string, memberId: string): Promise<void> {
    await this.client.hset(this.membersKey(groupId), memberId, this.owner);
  }

  members(groupId: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.membersKey(groupId));
  }

  async forget(groupId: string, memberId: string): Promise<void> {
    await this.client.hdel(this.membersKey(groupId), memberId);
  }

  async claim(groupId: string, memberId: string): Promise<boolean> {
    const key = `${this.options.prefix}kafka-evict:${groupId}:${memberId}`;
    return (await this.client.set(key, this.owner, 'PX', 5_000, 'NX')) === 'OK';
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }

  private membersKey(groupId: string): string {
    return `${this.options.prefix}kafka-members:${groupId}`;
  }
}

/** The part of kafkajs's broker (not in its typings) that sends a LeaveGroup. */
interface LeavingBroker {
  leaveGroup?: (request: { groupId: string; memberId: string }) => Promise<unknown>;
}

/**
 * Sends a LeaveGroup for `memberId` to the group's coordinator, as the member itself would on a
 * clean exit (and as Kafka's admin removeMembersFromConsumerGroup does): the coordinator drops
 * the member and rebalances the group. Uses the consumer's own kafkajs cluster (what kafkajs
 * hands to partition assigners), so its connection settings and negotiated versions apply.
 */
export async function leaveGroupFor(
  cluster: Cluster,
  groupId: string,
  memberId: string,
): Promise<'evicted' | 'gone'> {
  const coordinator = (await cluster.findGroupCoordinator({ groupId })) as unknown as LeavingBroker;
  if (typeof coordinator.leaveGroup !== 'function')
    throw new Error('kafkajs broker has no leaveGroup: member eviction needs kafkajs 2.x');
  try {
    await coordinator.leaveGroup({ groupId, memberId });
    return 'evicted';
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'UNKNOWN_MEMBER_ID' || type === 'GROUP_ID_NOT_FOUND') return 'gone';
    throw e;
  }
}
