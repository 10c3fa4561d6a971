import type { Cluster } from 'kafkajs';
import type { BusLogger } from '../bus';
import { errorText } from '../logger';

/**
 * What the leases need of the hot store (a structural subset of @perp/cache's HotStore, which
 * satisfies it): keys with a TTL the store expires itself, so no two clocks are compared.
 */
export interface LeaseStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  del(...keys: string[]): Promise<number>;
  hset(key: string, fields: Record<string, string>): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  hdel(key: string, ...fields: string[]): Promise<number>;
}

export interface MemberLeaseOptions {
  store: LeaseStore;
  /** A lease not renewed for this long has expired (KAFKA_MEMBER_LEASE_MS). */
  leaseMs: number;
  /** Renewal and watch period (default leaseMs / 4). */
  periodMs?: number;
}

/** Removes `memberId` from the group; 'gone' when the coordinator no longer knows it. */
export type Evict = (memberId: string) => Promise<'evicted' | 'gone'>;

const leaseKey = (groupId: string, memberId: string) => `kafka-lease:${groupId}:${memberId}`;
const membersKey = (groupId: string) => `kafka-members:${groupId}`;
const evictionKey = (groupId: string, memberId: string) => `kafka-evict:${groupId}:${memberId}`;

/**
 * A failure detector faster than the group's session timeout. Each member holds a short lease in
 * the hot store, renewed by a timer of its own (not by message processing), and lists its member
 * id in the group's set. Every member watches the others' leases: one missing on two watches in a
 * row (a store that stalled for everyone gets a period to catch up) belongs to a dead member, which
 * a survivor removes with a LeaveGroup on its behalf, so the coordinator rebalances at once instead
 * of after the session timeout. A live member suspected by mistake (an event loop stalled longer
 * than the lease) loses its partitions at its next heartbeat and rejoins with a new member id; the
 * subscription confirms its membership with a heartbeat before delivering after such a stall.
 *
 * Only members that registered are ever evicted: a member without leases (an older version, a
 * store that restarted and lost the set) is left to the session timeout.
 */
export class MemberLeases {
  private memberId?: string;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private renewedAt = 0;
  private readonly periodMs: number;
  /** Members whose lease was missing on the last watch. */
  private missing = new Set<string>();
  private readonly evicting = new Set<string>();
  private closed = false;

  constructor(
    private readonly groupId: string,
    private readonly options: MemberLeaseOptions,
    private readonly evict: Evict,
    private readonly logger: BusLogger,
  ) {
    this.periodMs = Math.max(10, Math.floor(options.periodMs ?? options.leaseMs / 4));
  }

  /** After every join: the member id this process now holds (a rejoin gets a new one). */
  joined(memberId: string): void {
    if (this.closed || memberId === this.memberId) return;
    const previous = this.memberId;
    this.memberId = memberId;
    this.renewedAt = 0;
    if (previous) void this.forget(previous);
    this.timer ??= setInterval(() => this.tick(), this.periodMs);
    this.timer.unref?.();
    this.tick();
  }

  /**
   * False when this member's lease may have lapsed: its last renewal is older than half a lease
   * (the event loop or the store stalled), so others may have evicted it meanwhile.
   */
  fresh(now = Date.now()): boolean {
    return this.memberId === undefined || now - this.renewedAt < this.options.leaseMs / 2;
  }

  /** Stops renewing and removes this member's lease and entry (after the member left the group). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Not waiting for a renewal in flight (a stalled store would hold up the shutdown): a lease it
    // writes after this lapses on its own, and the member's entry is gone, so nobody watches it.
    if (this.memberId) await this.forget(this.memberId);
  }

  private tick(): void {
    if (this.ticking || this.closed) return;
    this.ticking = this.renewAndWatch()
      .catch((e) => this.logger.warn(`group ${this.groupId}: member leases: ${errorText(e)}`))
      .finally(() => (this.ticking = undefined));
  }

  private async renewAndWatch(): Promise<void> {
    const me = this.memberId;
    if (!me) return;
    const { store, leaseMs } = this.options;
    const sentAt = Date.now();
    await store.set(leaseKey(this.groupId, me), String(process.pid), { ttlMs: leaseMs });
    if (me !== this.memberId || this.closed) return;
    if (this.renewedAt === 0) await store.hset(membersKey(this.groupId), { [me]: String(sentAt) });
    if (me !== this.memberId || this.closed) return;
    this.renewedAt = sentAt;
    await this.watch(me);
  }

  private async watch(me: string): Promise<void> {
    const { store } = this.options;
    const members = Object.keys(await store.hgetall(membersKey(this.groupId))).filter((m) => m !== me);
    const missing = new Set<string>();
    for (const m of members) {
      if ((await store.get(leaseKey(this.groupId, m))) !== undefined) continue;
      if (!this.missing.has(m)) {
        missing.add(m);
        continue;
      }
      // One survivor evicts (the others would only get UNKNOWN_MEMBER_ID); not awaited, so a
      // coordinator that is slow to answer never holds up this member's own renewals.
      if (this.evicting.has(m)) continue;
      if (!(await store.setIfAbsent(evictionKey(this.groupId, m), me, { ttlMs: 3 * this.options.leaseMs })))
        continue;
      this.evicting.add(m);
      void this.remove(m).finally(() => this.evicting.delete(m));
    }
    this.missing = missing;
  }

  private async remove(memberId: string): Promise<void> {
    const began = Date.now();
    try {
      const outcome = await this.evict(memberId);
      this.logger.log(
        `group ${this.groupId}: member ${memberId} lost its lease: ${outcome === 'evicted' ? 'evicted' : 'already gone'} (${Date.now() - began} ms)`,
      );
      await this.options.store.hdel(membersKey(this.groupId), memberId);
    } catch (e) {
      this.logger.warn(`group ${this.groupId}: evicting member ${memberId} failed: ${errorText(e)}`);
    }
  }

  private async forget(memberId: string): Promise<void> {
    const { store } = this.options;
    try {
      await store.del(leaseKey(this.groupId, memberId));
      await store.hdel(membersKey(this.groupId), memberId);
    } catch (e) {
      this.logger.warn(`group ${this.groupId}: member lease not removed: ${errorText(e)}`);
    }
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
