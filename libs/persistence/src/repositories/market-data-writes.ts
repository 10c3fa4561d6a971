import {
  MarketAdlQuantilesEntity,
  MarketBookEntity,
  MarketBookLevelEntity,
} from '../entities/market-book.entity';
import { MarketCandleEntity, MarketTickerMinuteEntity } from '../entities/market-candle.entity';
import { MarketPriceEntity } from '../entities/market-price.entity';
import { MarketPositionEntity, MarketStatisticEntity } from '../entities/market-statistic.entity';
import { MarketAggTradeEntity, MarketTradeEntity } from '../entities/market-trade.entity';
import { WriteBatch } from './write-batch';

/** The figures a candle and a ticker minute share. */
const OHLCV = ['open', 'high', 'low', 'close', 'volume', 'quote_volume', 'count'];
const CANDLE_VALUES = ['close_time', ...OHLCV, 'taker_buy_volume', 'taker_buy_quote_volume'];
const MINUTE_VALUES = [...OHLCV, 'first_time', 'last_time', 'last_qty'];
const STATISTIC_VALUES = [
  'open_interest',
  'open_interest_value',
  'long_accounts',
  'short_accounts',
  'top_long_accounts',
  'top_short_accounts',
  'top_long_positions',
  'top_short_positions',
];
const ZERO = /^-?0*\.?0*$/;

/**
 * The market-data service's writes of one turn, gathered into a batch that goes to the database as
 * one statement with the turn's mark (`ProcessedOffsetRepository.applyWritesOnce`).
 */
export class MarketDataWrites {
  constructor(readonly batch = new WriteBatch()) {}

  /** New trades; a replayed id is ignored. */
  insertTrades(rows: readonly MarketTradeEntity[]): this {
    this.batch.insert(MarketTradeEntity, rows, { onConflict: 'ignore' });
    return this;
  }

  /** Aggregates by (symbol, first id): a growing aggregate replaces its earlier row. */
  upsertAggTrades(rows: readonly MarketAggTradeEntity[]): this {
    this.batch.insert(MarketAggTradeEntity, rows, {
      onConflict: { target: ['symbol', 'id'], update: ['qty', 'last_id'] },
    });
    return this;
  }

  upsertCandles(rows: readonly MarketCandleEntity[]): this {
    this.batch.insert(MarketCandleEntity, rows, {
      onConflict: { target: ['symbol', 'series', 'interval', 'open_time'], update: CANDLE_VALUES },
    });
    return this;
  }

  /**
   * The minutes a turn changed; minutes older than `before` are deleted (the window is 24 h), but
   * never one written here: the two statements of a batch must not meet on a row.
   */
  saveTickerMinutes(rows: readonly MarketTickerMinuteEntity[], before?: number): this {
    this.batch.insert(MarketTickerMinuteEntity, rows, {
      onConflict: { target: ['symbol', 'open_time'], update: MINUTE_VALUES },
    });
    if (before !== undefined)
      this.batch.deleteBelow(
        MarketTickerMinuteEntity,
        'openTime',
        rows.reduce((least, r) => Math.min(least, r.openTime), before),
      );
    return this;
  }

  upsertStatistics(rows: readonly MarketStatisticEntity[]): this {
    this.batch.insert(MarketStatisticEntity, rows, {
      onConflict: { target: ['symbol', 'period', 'time'], update: STATISTIC_VALUES },
    });
    return this;
  }

  /** Positions as they now stand; a zero size deletes the row. */
  savePositions(rows: readonly MarketPositionEntity[]): this {
    this.batch.insert(
      MarketPositionEntity,
      rows.filter((r) => !ZERO.test(r.size)),
      { onConflict: { target: ['symbol', 'user'], update: ['size'] } },
    );
    this.batch.delete(
      MarketPositionEntity,
      ['symbol', 'user'],
      rows.filter((r) => ZERO.test(r.size)),
    );
    return this;
  }

  /** Books' headers (partition, seq, time) as they now stand. */
  saveBooks(books: readonly MarketBookEntity[]): this {
    this.batch.insert(MarketBookEntity, books, {
      onConflict: { target: ['symbol'], update: ['partition', 'seq', 'time', 'trade_seq', 'trade_time'] },
    });
    return this;
  }

  /** Changed book levels, one row per level; a zero quantity deletes the level. */
  saveBookLevels(levels: readonly MarketBookLevelEntity[]): this {
    this.batch.insert(
      MarketBookLevelEntity,
      levels.filter((l) => !ZERO.test(l.qty)),
      { onConflict: { target: ['symbol', 'side', 'price'], update: ['qty'] } },
    );
    this.batch.delete(
      MarketBookLevelEntity,
      ['symbol', 'side', 'price'],
      levels.filter((l) => ZERO.test(l.qty)),
    );
    return this;
  }

  /** Each symbol's latest ADL quantiles. */
  saveAdlQuantiles(rows: readonly MarketAdlQuantilesEntity[]): this {
    this.batch.insert(MarketAdlQuantilesEntity, rows, {
      onConflict: { target: ['symbol'], update: ['seq', 'time', 'long', 'short'] },
    });
    return this;
  }

  /** The latest mark price event per symbol (one row per symbol per call). */
  savePrices(rows: readonly MarketPriceEntity[]): this {
    this.batch.insert(MarketPriceEntity, rows, {
      onConflict: {
        target: ['symbol'],
        update: [
          'partition',
          'mark_price',
          'index_price',
          'last_price',
          'funding_rate',
          'next_funding_time',
          'time',
        ],
      },
    });
    return this;
  }
}
