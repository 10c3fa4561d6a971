import type { Bus, BusMessage, Subscription, TopicPartition } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import {
  BookMarketState,
  type Market,
  type MarketRegistry,
  type MarketStatus,
  normalizeSymbol,
  type OrderBook,
} from '@perp/domain';
import { ShardPartitions, type SnapshotPolicy } from '@perp/infrastructure';
import type { ShardSnapshotRepository } from '@perp/persistence';
import { type AdlScoresCommand, applyAdlScores } from './adl-scores';
import { applyBookCommand, type CommandOutput, type OrderCommand } from './book-commands';
import { commandResult } from './engine-events';
import { createSymbolBook, ENGINE_SNAPSHOT_VERSION, EnginePartition } from './engine-partition';
import { ALREADY_APPLIED, type ShardReply } from './engine-replies';
import { adlRemainder } from './adl-close';
import {
  applyLiquidationOrder,
  type LiquidationCommand,
  type LiquidationRemainder,
} from './liquidation-order';

export type { CommandOutput, OrderCommand } from './book-commands';
export type { ShardReply } from './engine-replies';

export type EngineShardOptions = SnapshotPolicy;

const MARKET_STATUS_OF_BOOK: Record<BookMarketState, MarketStatus> = {
  [BookMarketState.TRADING]: 'TRADING',
  [BookMarketState.HALT]: 'HALT',
  [BookMarketState.CLOSE]: 'CLOSE',
};

/**
 * The matching engine's state for the engine-command partitions this member owns: one OrderBook per
 * symbol, interning maps, snapshots. This class orders and dedupes inputs; `book-commands` applies
 * them, `engine-events` and `engine-replies` say what they produced.
 *
 * Exactly-once output: a snapshot records the last input whose events were published. After a
 * restore the shard seeks to the next input and replays; inputs after the snapshot that were
 * already handled before a crash re-emit their events with the same deterministic ids
 * (`topic/partition/offset/index`, trade ids derived from them), and consumers drop duplicates by id.
 * Commands forwarded by risk are also deduped by their origin (a risk replay forwards them again).
 */
export class EngineShard {
  private readonly partitions: ShardPartitions<EnginePartition>;
  /** What closes the part of a liquidation the book did not fill: ADL (adl-close.ts). */
  liquidationRemainder: LiquidationRemainder = adlRemainder;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    snapshots?: ShardSnapshotRepository,
    options: EngineShardOptions = {},
  ) {
    this.partitions = new ShardPartitions(
      TOPICS.engineCommands.name,
      ENGINE_SNAPSHOT_VERSION,
      {
        empty: (partition) => new EnginePartition(partition),
        restore: (partition, state) => EnginePartition.deserialize(partition, state),
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

  /** The book of a symbol, when this member owns its partition and the book exists. */
  book(symbol: string): OrderBook | undefined {
    for (const p of this.partitions.values()) {
      const b = p.books.get(symbol);
      if (b) return b.book;
    }
    return undefined;
  }

  /**
   * A market's status as partition `partition`'s log has it: its book's, else for a configured
   * market the configuration's (no status command of it applied here yet). Undefined for a market
   * not listed as of this log: unknown, or listed at run time by a `market.add` not applied here.
   */
  marketStatus(partition: number, symbol: string): MarketStatus | undefined {
    const canonical = this.markets.find(symbol)?.symbol ?? normalizeSymbol(symbol);
    const book = this.partitions.get(partition)?.books.get(canonical)?.book;
    if (book) return MARKET_STATUS_OF_BOOK[book.state];
    return this.markets.configured(canonical) ? this.markets.initial(canonical)?.status : undefined;
  }

  /**
   * A market listed at run time (the `market.add` at `m`, taken or replayed): its book in the
   * partition, in the status the listing gave it, unless the partition has one. From here on the
   * partition's log decides the book's status; the live list's first state of the market may be a
   * later one (a compacted markets topic keeps only the latest).
   */
  listMarket(m: BusMessage, market: Market): void {
    const state = this.partitions.getOrCreate(m.partition);
    if (state.books.has(market.symbol) || this.markets.configured(market.symbol)) return;
    state.books.set(market.symbol, createSymbolBook(market));
  }

  /** Whether the group had committed the input at `m` when this member gained its partition. */
  committedBefore(m: BusMessage): boolean {
    return this.partitions.replayed(this.partitions.getOrCreate(m.partition), BigInt(m.offset));
  }

  /** onAssigned: restore each partition from its latest snapshot and seek past it. */
  assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    return this.partitions.assigned(partitions, sub);
  }

  /** onRevoked: save what is unsaved (still a member on close) and drop the partitions' books. */
  revoked(partitions: TopicPartition[]): Promise<void> {
    return this.partitions.revoked(partitions);
  }

  /** Stores every owned partition now (tests, shutdown). */
  snapshotAll(): Promise<void> {
    return this.partitions.saveAll();
  }

  /**
   * Applies one command of an owned partition to its state and returns what it produced, without
   * publishing: the events in order (a forwarded command's `command.result` last) and the reply.
   * Undefined when the input was applied already: at or below the partition's applied offset, or a
   * command forwarded from an origin the partition has seen (a risk replay). Synchronous and free
   * of I/O; the partition counts it as applied (a redelivery skips it), so publish its events in
   * the same turn, inside `inTurn` of the partition, then `markApplied` or `turnApplied`.
   */
  apply(m: BusMessage, cmd: OrderCommand | AdlScoresCommand): CommandOutput | undefined {
    const state = this.partitions.getOrCreate(m.partition);
    if (BigInt(m.offset) <= state.lastOffset) return undefined;
    const origin = 'origin' in cmd ? cmd.origin : undefined;
    if (origin && state.seen(origin)) return undefined;
    // Inputs the group had committed when this member gained the partition: events already out.
    const replayed = this.partitions.replayed(state, BigInt(m.offset));
    const out =
      cmd.type === 'adl.scores'
        ? applyAdlScores(state, this.markets, m, cmd)
        : applyBookCommand(state, this.markets, m, cmd, replayed);
    if (origin) {
      state.markSeen(origin);
      // Scores answer nobody: no command.result.
      if (cmd.type !== 'adl.scores' && !replayed)
        out.events.push(commandResult(state, m, cmd, out.reply, out.events.length));
    }
    state.lastOffset = BigInt(m.offset);
    return out;
  }

  /**
   * `liquidation.place` (see liquidation-order.ts), deduped like `apply`; its last event is
   * `liquidation.done` (no `command.result`: nobody waits for a reply).
   */
  applyLiquidation(m: BusMessage, cmd: LiquidationCommand): CommandOutput | undefined {
    const state = this.partitions.getOrCreate(m.partition);
    if (BigInt(m.offset) <= state.lastOffset) return undefined;
    if (cmd.origin && state.seen(cmd.origin)) return undefined;
    const out = applyLiquidationOrder(state, this.markets, m, cmd, this.liquidationRemainder);
    if (cmd.origin) state.markSeen(cmd.origin);
    state.lastOffset = BigInt(m.offset);
    return out;
  }

  /** Inside the turn, when its outputs could not be published: back to the snapshot, replay. */
  reload(partition: number): Promise<void> {
    return this.partitions.reload(partition);
  }

  /** Inside the turn, once a turn's `count` applied inputs are published: snapshot when due. */
  turnApplied(partition: number, count: number): Promise<void> {
    return this.partitions.appliedTurn(this.partitions.getOrCreate(partition), count);
  }

  /** Runs `fn` in the partition's turn: no other input or snapshot of the partition interleaves. */
  inTurn<T>(partition: number, fn: () => Promise<T>): Promise<T> {
    return this.partitions.getOrCreate(partition).run(fn);
  }

  /** Inside the turn, once the outputs of the input at `m` are published: it counts as applied. */
  markApplied(m: BusMessage): Promise<void> {
    return this.partitions.applied(this.partitions.getOrCreate(m.partition), BigInt(m.offset));
  }

  /** Applies one command of an owned partition, publishes its events and returns the reply. */
  handle(m: BusMessage, cmd: OrderCommand | AdlScoresCommand): Promise<ShardReply> {
    return this.inTurn(m.partition, async () => {
      const out = this.apply(m, cmd);
      if (!out) return ALREADY_APPLIED;
      for (const e of out.events) await this.bus.publish(TOPICS.engineEvents.name, e.symbol, e);
      await this.markApplied(m);
      return out.reply;
    });
  }
}
