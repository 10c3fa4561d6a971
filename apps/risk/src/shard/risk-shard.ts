import {
  type Bus,
  type BusMessage,
  HEADER_CORRELATION_ID,
  type Subscription,
  type TopicPartition,
} from '@perp/bus';
import type { HotEntry, HotStore } from '@perp/cache';
import {
  type AlgoOrdersProjection,
  CLOSED_ORDER_TTL_MS,
  HEADER_INPUT_END,
  HOT_KEYS,
  type OrderRecord,
  outputId,
  type Reply,
  type RiskCommand,
  RISK_TOTALS_KEY,
  riskTotalsRecordOf,
  TOPICS,
} from '@perp/contracts';
import { AccountBook, BookTotals, type Chain, type MarketRegistry } from '@perp/domain';
import { ShardPartitions, type SnapshotPolicy } from '@perp/infrastructure';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { AccountHashes, type AccountHashWrite } from './account-hashes';
import { applyRiskCommand } from './handlers';
import { type PartitionBookOptions, RISK_SNAPSHOT_VERSION, RiskPartition } from './risk-partition';
import { Output, replyToOf, type RiskInput } from './turn-output';

export type { RiskInput } from './turn-output';

export type RiskShardOptions = SnapshotPolicy;

/** Hot-store entries per round trip when a restored partition's projections are written again. */
const RESTORE_WRITE_BATCH = 1000;

/** An input's last account event of a key (user) says so: a reader knows the input's group is whole. */
const INPUT_END: Readonly<Record<string, string>> = Object.freeze({ [HEADER_INPUT_END]: '1' });
const INPUT_CONTINUES: Readonly<Record<string, string>> = Object.freeze({ [HEADER_INPUT_END]: '0' });

type AccountEventBody = Output['accountEvents'][number];
const accountEventKey = (e: AccountEventBody): string => ('user' in e ? e.user : e.type);

/**
 * What a state-only replay changed and has not projected: the hot store is written once, when the
 * replay reaches the group's commit, not after each of its turns.
 */
interface Unprojected {
  users: Map<string, number>;
  algoUsers: Map<string, number>;
  closed: OrderRecord[];
}

interface TurnOutput extends RiskInput {
  out: Output;
  /** Below the group's commit when this member gained the partition: its messages are out already. */
  replayed: boolean;
}

/**
 * Risk stage 1 and 2 for the risk-command partitions this member owns (users by hash): pre-trade
 * checks and margin freeze before an order goes to its engine shard, then settlement of the engine
 * events the engine copies back into the user's partition, all in one ordered stream per user.
 *
 * Exactly-once effect: forwarded engine commands carry their origin (partition, offset), which the
 * engine dedupes; engine-event copies carry their source place, deduped here by high-water mark;
 * output ids derive from the input's place, so a replay after a crash re-emits the same ids.
 */
export class RiskShard {
  private readonly partitions: ShardPartitions<RiskPartition>;
  private readonly asset: string;
  /** Money totals per partition state (a reloaded partition is a new state: recounted once). */
  private readonly totals = new WeakMap<RiskPartition, BookTotals>();
  /** What each partition state wrote of its accounts (a reloaded partition writes them whole). */
  private readonly hashes = new WeakMap<RiskPartition, AccountHashes>();
  /** Projections of a partition state's replay so far, until it catches up with the commit. */
  private readonly unprojected = new WeakMap<RiskPartition, Unprojected>();

  constructor(
    private readonly bus: Bus,
    markets: MarketRegistry,
    chain: Chain,
    private readonly hot: HotStore,
    snapshots?: ShardSnapshotRepository,
    options: RiskShardOptions = {},
  ) {
    const bookOptions: PartitionBookOptions = { feeTiers: chain.feeTiers, asset: chain.settlementAsset };
    this.asset = chain.settlementAsset ?? 'USDT';
    this.partitions = new ShardPartitions(
      TOPICS.riskCommands.name,
      RISK_SNAPSHOT_VERSION,
      {
        empty: (partition) => RiskPartition.empty(partition, markets, bookOptions),
        restore: (partition, state) => RiskPartition.deserialize(partition, state, markets, bookOptions),
        restored: (p, savedAt) => this.projectRestored(p, savedAt),
      },
      snapshots,
      options,
    );
  }

  stop(): void {
    this.partitions.stop();
  }

  ownedPartitions(): number[] {
    return this.partitions.owned();
  }

  /** Offset of the last input applied in an owned partition (replay progress). */
  appliedOffset(partition: number): bigint | undefined {
    return this.partitions.get(partition)?.lastOffset;
  }

  /** The account book of a partition this member owns (tests, invariants). */
  book(partition: number): AccountBook | undefined {
    return this.partitions.get(partition)?.book;
  }

  assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    return this.partitions.assigned(partitions, sub);
  }

  revoked(partitions: TopicPartition[]): Promise<void> {
    return this.partitions.revoked(partitions);
  }

  snapshotAll(): Promise<void> {
    return this.partitions.saveAll();
  }

  /** One risk command (tests): a turn of one input. */
  handle(m: BusMessage, cmd: RiskCommand): Promise<void> {
    return this.handleTurn(m.partition, [{ message: m, command: cmd }]);
  }

  /**
   * A batched turn of one owned partition: applies every new input in order, then writes the turn's
   * hot-store changes in one round trip and publishes all its outputs (engine commands, account
   * events, replies) together, so they share one journal write or produce request. A reply is
   * therefore never visible before the effects it reports. An input that throws ends the turn: what
   * was applied before it is still published, and the bus redelivers from the failed input.
   */
  async handleTurn(partition: number, inputs: readonly RiskInput[]): Promise<void> {
    const state = this.partitions.getOrCreate(partition);
    await state.run(async () => {
      const turn: TurnOutput[] = [];
      let failure: unknown;
      for (const { message: m, command: cmd } of inputs) {
        const offset = BigInt(m.offset);
        if (offset <= state.lastOffset) continue;
        const replayed = this.partitions.replayed(state, offset);
        const out = new Output(replyToOf(m), !replayed);
        try {
          applyRiskCommand({ p: state, m, out, markets: state.markets, asset: this.asset }, cmd);
        } catch (e) {
          failure = e;
          break;
        }
        turn.push({ message: m, command: cmd, out, replayed });
        state.lastOffset = offset;
      }
      if (turn.length) {
        try {
          await this.publish(state, turn);
        } catch (e) {
          // Applied but not on the log: the state is ahead of it. Reload and replay, then retry.
          await this.partitions.reload(partition);
          throw e;
        }
        await this.partitions.appliedTurn(state, turn.length);
      }
      if (failure !== undefined) throw failure;
    });
  }

  private async publish(p: RiskPartition, turn: readonly TurnOutput[]): Promise<void> {
    const held = this.unprojected.get(p);
    const users = held?.users ?? new Map<string, number>();
    const algoUsers = held?.algoUsers ?? new Map<string, number>();
    const closed = held?.closed ?? [];
    for (const { command, out } of turn) {
      for (const r of out.closed) closed.push(r);
      for (const user of out.users) {
        users.set(user, command.time);
        p.accountTimes.set(user, command.time);
      }
      for (const user of out.algoUsers) algoUsers.set(user, command.time);
    }
    // A replay of inputs whose outputs are on the log already: nobody waits for these projections,
    // and the store holds the previous owner's (as new, or newer) or the snapshot's meanwhile.
    if (turn[turn.length - 1]!.replayed && p.lastOffset + 1n < p.publishedBelow) {
      // A record closed a TTL before the newest input would have left the store by now: not held.
      dropBefore(closed, turn[turn.length - 1]!.command.time - CLOSED_ORDER_TTL_MS);
      if (!held) this.unprojected.set(p, { users, algoUsers, closed });
      return;
    }
    this.unprojected.delete(p);
    const hot: HotEntry[] = closed.map((r) => ({
      key: HOT_KEYS.closedOrder(r.orderId),
      value: p.recordJson(r),
      ttlMs: CLOSED_ORDER_TTL_MS,
    }));
    const accounts = [...users].map(([user, time]) => this.accountWrite(p, user, time));
    for (const [user, time] of algoUsers) hot.push(this.algoEntry(p, user, time));
    hot.push(this.totalsEntry(p, users.keys(), turn[turn.length - 1]!.command.time));
    // Read-your-writes: the projection is in the hot store before any reply of the turn leaves.
    await Promise.all([this.hot.setMany(hot), ...accounts.map((a) => this.writeAccount(a))]);
    const sends: Promise<unknown>[] = [];
    const publish = (topic: string, key: string, value: unknown, headers?: Record<string, string>) =>
      sends.push(this.bus.publish(topic, key, value, headers));
    for (const { message: m, command: cmd, out, replayed } of turn) {
      // Replayed inputs are projected too, once the replay has caught up (an in-memory store starts
      // empty after a restart); their engine commands, account events and replies are on the log.
      if (replayed) continue;
      for (const c of out.engineCommands) publish(TOPICS.engineCommands.name, c.symbol, c);
      const events = out.accountEvents;
      for (let i = 0; i < events.length; i++) {
        const e = events[i]!;
        // Envelope first, then the body's fields (a spread with new fields is V8's slow path).
        const id = outputId(m.topic, m.partition, m.offset, i);
        const event = Object.assign({ id, v: 1 as const, time: cmd.time }, e);
        const key = accountEventKey(e);
        let last = true;
        for (let j = i + 1; j < events.length && last; j++) last = accountEventKey(events[j]!) !== key;
        publish(TOPICS.accountEvents.name, key, event, last ? INPUT_END : INPUT_CONTINUES);
      }
      if (out.reply && out.replyTo) {
        const { topic, key, correlationId } = out.replyTo;
        const reply: Reply = Object.assign({ correlationId, time: cmd.time }, out.reply);
        publish(topic, key, reply, { [HEADER_CORRELATION_ID]: correlationId });
      }
    }
    await Promise.all(sends);
  }

  /**
   * A partition restored from its snapshot whose projections the hot store does not hold (its
   * totals key is gone: an embedded exchange's memory store after a restart, a flushed Redis) gets
   * every account and algo projection written again, as of the snapshot; the replay that follows
   * writes the accounts it touches. A hot store that kept them (Redis across a failover) is left
   * as it is: it is ahead of the snapshot, and the replay brings the state up to it. An account's
   * update time is that of the input that last changed it; `time`, when the snapshot was stored,
   * stands for it in a snapshot without account times, and for the algo projections and totals.
   */
  private async projectRestored(p: RiskPartition, time: number): Promise<void> {
    if ((await this.hot.get(RISK_TOTALS_KEY(p.partition))) !== undefined) return;
    const accounts: Promise<void>[] = [];
    for (const account of p.book.allAccounts()) {
      const changed = p.accountTimes.get(account.user) ?? time;
      accounts.push(this.writeAccount(this.accountWrite(p, account.user, changed)));
      if (accounts.length >= RESTORE_WRITE_BATCH) await Promise.all(accounts.splice(0));
    }
    await Promise.all(accounts);
    const entries: HotEntry[] = [];
    const flush = async () => {
      await this.hot.setMany(entries);
      entries.length = 0;
    };
    for (const user of p.algos.users()) {
      entries.push(this.algoEntry(p, user, time));
      if (entries.length >= RESTORE_WRITE_BATCH) await flush();
    }
    entries.push(this.totalsEntry(p, [], time));
    await flush();
  }

  /** The partition's money totals after the turn (solvency), from the users it changed. */
  private totalsEntry(p: RiskPartition, changed: Iterable<string>, time: number): HotEntry {
    let totals = this.totals.get(p);
    if (totals) totals.refresh(p.book, changed);
    else this.totals.set(p, (totals = BookTotals.of(p.book)));
    const record = riskTotalsRecordOf(p.partition, time, p.lastOffset, totals.totals(p.book));
    return { key: RISK_TOTALS_KEY(p.partition), value: JSON.stringify(record) };
  }

  private algoEntry(p: RiskPartition, user: string, time: number): HotEntry {
    const projection: AlgoOrdersProjection = {
      v: 1,
      user,
      time,
      live: p.algos.liveOf(user),
      ended: p.algos.endedOf(user),
    };
    return { key: HOT_KEYS.algoOrders(user), value: JSON.stringify(projection) };
  }

  private accountWrite(p: RiskPartition, user: string, time: number): AccountHashWrite {
    let hashes = this.hashes.get(p);
    if (!hashes) this.hashes.set(p, (hashes = new AccountHashes()));
    return hashes.write(user, time, p.book.account(user), p.openRecordsOf(user));
  }

  private writeAccount(w: AccountHashWrite): Promise<void> {
    return this.hot.hupdate(w.key, w.set, w.del, { replace: w.replace });
  }
}

/** Removes the records at the front of `closed` (oldest first) that closed before `time`. */
function dropBefore(closed: OrderRecord[], time: number): void {
  let n = 0;
  while (n < closed.length && closed[n]!.updateTime < time) n++;
  if (n > 0) closed.splice(0, n);
}
