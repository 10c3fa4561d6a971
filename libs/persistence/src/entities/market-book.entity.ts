import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
/** bigint as a checked JS integer (times in ms, and the engine's sequences). */
const int64 = { type: 'bigint', transformer: epochMsTransformer } as const;

export type BookSide = 'BID' | 'ASK';

/**
 * The durable L2 book of a symbol, so that market-data can rebuild its hot store after a restart:
 * `seq` is the engine's book sequence the levels stand at; `tradeSeq` the sequence of the last
 * trade (an ADL close included) moved into the positions, so that an engine replay's copy of it is
 * not counted twice; `partition` is the engine-events partition the symbol's events arrive on, so
 * that a partition's new owner finds its symbols.
 */
@Entity({ name: 'market_books' })
export class MarketBookEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @Column({ type: 'integer' })
  partition!: number;

  @Column(int64)
  seq!: number;

  @Column(int64)
  time!: number;

  @Column({ ...int64, name: 'trade_seq' })
  tradeSeq!: number;

  /** The time of that trade (open interest's `time`). */
  @Column({ ...int64, name: 'trade_time' })
  tradeTime!: number;
}

/** One price level of a `market_books` book; a level whose quantity reaches zero is deleted. */
@Entity({ name: 'market_book_levels' })
@Check('market_book_levels_side_check', `side IN ('BID', 'ASK')`)
export class MarketBookLevelEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ type: 'text' })
  side!: BookSide;

  /** numeric keeps the scale written: '100.50' reads back as '100.50'. */
  @PrimaryColumn(decimal)
  price!: string;

  @Column(decimal)
  qty!: string;
}

/**
 * A symbol's latest `adl.quantiles` event: `long` and `short` are its `[[user, quantile], ...]`
 * lists as JSON text (text, not jsonb: the batch writes it through `unnest`).
 */
@Entity({ name: 'market_adl_quantiles' })
export class MarketAdlQuantilesEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @Column(int64)
  seq!: number;

  @Column(int64)
  time!: number;

  @Column({ type: 'text' })
  long!: string;

  @Column({ type: 'text' })
  short!: string;
}
