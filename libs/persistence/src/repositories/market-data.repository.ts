import {
  type EntityManager,
  LessThan,
  MoreThanOrEqual,
  type ObjectLiteral,
  type SelectQueryBuilder,
} from 'typeorm';
import { epochMsTransformer } from '../columns';
import {
  MarketAdlQuantilesEntity,
  MarketBookEntity,
  MarketBookLevelEntity,
} from '../entities/market-book.entity';
import {
  type CandleSeriesName,
  MarketCandleEntity,
  MarketTickerMinuteEntity,
} from '../entities/market-candle.entity';
import { MarketPriceEntity } from '../entities/market-price.entity';
import {
  FundingRateEntity,
  MarketPositionEntity,
  MarketStatisticEntity,
} from '../entities/market-statistic.entity';
import { MarketAggTradeEntity, MarketTradeEntity } from '../entities/market-trade.entity';
import { tableName } from './bulk-insert';
import { MarketDataWrites } from './market-data-writes';

/**
 * A page of a market-data series, oldest first, like Binance: with startTime the first `limit` rows
 * from it; otherwise the last `limit` rows up to endTime (or now).
 */
export interface SeriesWindow {
  startTime?: number;
  endTime?: number;
  limit: number;
}

/** A stored L2 book: levels as [price, qty] strings, bids best (highest) first, asks lowest first. */
export interface StoredBook {
  seq: number;
  time: number;
  tradeSeq: number;
  tradeTime: number;
  bids: [string, string][];
  asks: [string, string][];
}

/**
 * The market-data projections in Postgres: written by the market-data service in one statement per
 * turn (`MarketDataWrites` with `applyWritesOnce`), read by gateways.
 */
export class MarketDataRepository {
  constructor(readonly manager: EntityManager) {}

  // ---- writes (the market-data service gathers them in `MarketDataWrites`; one statement each here) ----

  insertTrades(rows: MarketTradeEntity[]): Promise<void> {
    return this.write((w) => w.insertTrades(rows));
  }

  upsertAggTrades(rows: MarketAggTradeEntity[]): Promise<void> {
    return this.write((w) => w.upsertAggTrades(rows));
  }

  upsertCandles(rows: MarketCandleEntity[]): Promise<void> {
    return this.write((w) => w.upsertCandles(rows));
  }

  saveTickerMinutes(rows: MarketTickerMinuteEntity[], before?: number): Promise<void> {
    return this.write((w) => w.saveTickerMinutes(rows, before));
  }

  upsertStatistics(rows: MarketStatisticEntity[]): Promise<void> {
    return this.write((w) => w.upsertStatistics(rows));
  }

  savePositions(rows: MarketPositionEntity[]): Promise<void> {
    return this.write((w) => w.savePositions(rows));
  }

  private write(gather: (writes: MarketDataWrites) => void): Promise<void> {
    const writes = new MarketDataWrites();
    gather(writes);
    return writes.batch.run(this.manager);
  }

  async insertFundingRates(rows: FundingRateEntity[]): Promise<void> {
    if (rows.length)
      await this.manager
        .createQueryBuilder()
        .insert()
        .into(FundingRateEntity)
        .values(rows)
        .orIgnore()
        .execute();
  }

  // ---- state a restarting projector resumes from ----

  /** The newest candle of each interval of a series. */
  latestCandles(symbol: string, series: CandleSeriesName): Promise<MarketCandleEntity[]> {
    return this.manager
      .getRepository(MarketCandleEntity)
      .createQueryBuilder('c')
      .distinctOn(['c.interval'])
      .where('c.symbol = :symbol AND c.series = :series', { symbol, series })
      .orderBy('c.interval')
      .addOrderBy('c.open_time', 'DESC')
      .getMany();
  }

  /** Minutes of the rolling 24 h ticker from `since` on, oldest first. */
  tickerMinutesSince(symbol: string, since: number): Promise<MarketTickerMinuteEntity[]> {
    return this.manager.getRepository(MarketTickerMinuteEntity).find({
      where: { symbol, openTime: MoreThanOrEqual(since) },
      order: { openTime: 'ASC' },
    });
  }

  lastTrade(symbol: string): Promise<MarketTradeEntity | null> {
    return this.manager
      .getRepository(MarketTradeEntity)
      .findOne({ where: { symbol }, order: { id: 'DESC' } });
  }

  lastAggTrade(symbol: string): Promise<MarketAggTradeEntity | null> {
    return this.manager
      .getRepository(MarketAggTradeEntity)
      .findOne({ where: { symbol }, order: { id: 'DESC' } });
  }

  positions(symbol: string): Promise<MarketPositionEntity[]> {
    return this.manager
      .getRepository(MarketPositionEntity)
      .find({ where: { symbol }, order: { user: 'ASC' } });
  }

  /** The symbol's stored book; undefined when it has none. */
  async book(symbol: string): Promise<StoredBook | undefined> {
    // One statement: the header and the levels of one snapshot (a turn may commit in between).
    const levels = tableName(this.manager, MarketBookLevelEntity);
    const rows: {
      seq: string;
      time: string;
      trade_seq: string;
      trade_time: string;
      side: string | null;
      price: string;
      qty: string;
    }[] = await this.manager.query(
      `SELECT b.seq, b.time, b.trade_seq, b.trade_time, l.side, l.price::text AS price, l.qty::text AS qty
         FROM ${tableName(this.manager, MarketBookEntity)} b
         LEFT JOIN ${levels} l ON l.symbol = b.symbol
         WHERE b.symbol = $1
         ORDER BY l.side, CASE WHEN l.side = 'BID' THEN -l.price ELSE l.price END`,
      [symbol],
    );
    const [head] = rows;
    if (!head) return undefined;
    const book: StoredBook = {
      seq: epochMsTransformer.from(head.seq) as number,
      time: epochMsTransformer.from(head.time) as number,
      tradeSeq: epochMsTransformer.from(head.trade_seq) as number,
      tradeTime: epochMsTransformer.from(head.trade_time) as number,
      bids: [],
      asks: [],
    };
    for (const r of rows)
      if (r.side !== null) (r.side === 'BID' ? book.bids : book.asks).push([r.price, r.qty]);
    return book;
  }

  /** The symbols with a stored book whose events arrive on engine-events `partition`. */
  async bookSymbols(partition: number): Promise<string[]> {
    const rows = await this.manager
      .getRepository(MarketBookEntity)
      .find({ select: { symbol: true }, where: { partition }, order: { symbol: 'ASC' } });
    return rows.map((r) => r.symbol);
  }

  async adlQuantiles(symbol: string): Promise<MarketAdlQuantilesEntity | undefined> {
    return (await this.manager.getRepository(MarketAdlQuantilesEntity).findOneBy({ symbol })) ?? undefined;
  }

  /** The latest mark price events of the symbols whose prices arrive on prices `partition`. */
  async latestPrices(partition: number): Promise<MarketPriceEntity[]> {
    return this.manager
      .getRepository(MarketPriceEntity)
      .find({ where: { partition }, order: { symbol: 'ASC' } });
  }

  // ---- reads (gateways) ----

  /** Trades from `fromId` on, or the latest `limit`; oldest first. */
  trades(symbol: string, limit: number, fromId?: number): Promise<MarketTradeEntity[]> {
    const qb = this.manager
      .getRepository(MarketTradeEntity)
      .createQueryBuilder('t')
      .where('t.symbol = :symbol', { symbol });
    if (fromId !== undefined)
      return qb.andWhere('t.id >= :fromId', { fromId }).orderBy('t.id', 'ASC').limit(limit).getMany();
    return qb
      .orderBy('t.id', 'DESC')
      .limit(limit)
      .getMany()
      .then((rows) => rows.reverse());
  }

  /** Aggregates from `fromId` on, or in a time window, or the latest; oldest first. */
  aggTrades(symbol: string, page: SeriesWindow & { fromId?: number }): Promise<MarketAggTradeEntity[]> {
    const qb = this.manager
      .getRepository(MarketAggTradeEntity)
      .createQueryBuilder('a')
      .where('a.symbol = :symbol', { symbol });
    if (page.fromId !== undefined)
      return qb.andWhere('a.id >= :fromId', page).orderBy('a.id', 'ASC').limit(page.limit).getMany();
    return window(qb, 'a.time', 'a.id', page);
  }

  candles(
    symbol: string,
    series: CandleSeriesName,
    interval: string,
    page: SeriesWindow,
  ): Promise<MarketCandleEntity[]> {
    const qb = this.manager
      .getRepository(MarketCandleEntity)
      .createQueryBuilder('c')
      .where('c.symbol = :symbol AND c.series = :series AND c.interval = :interval', {
        symbol,
        series,
        interval,
      });
    return window(qb, 'c.open_time', 'c.open_time', page);
  }

  /** The latest candle opening before `time`: the close a kline window's leading gap carries. */
  candleBefore(
    symbol: string,
    series: CandleSeriesName,
    interval: string,
    time: number,
  ): Promise<MarketCandleEntity | null> {
    return this.manager.getRepository(MarketCandleEntity).findOne({
      where: { symbol, series, interval, openTime: LessThan(time) },
      order: { openTime: 'DESC' },
    });
  }

  statistics(symbol: string, period: string, page: SeriesWindow): Promise<MarketStatisticEntity[]> {
    const qb = this.manager
      .getRepository(MarketStatisticEntity)
      .createQueryBuilder('s')
      .where('s.symbol = :symbol AND s.period = :period', { symbol, period });
    return window(qb, 's.time', 's.time', page);
  }

  /** Settled funding rates; without a symbol, every symbol's. */
  fundingRates(symbol: string | undefined, page: SeriesWindow): Promise<FundingRateEntity[]> {
    const qb = this.manager.getRepository(FundingRateEntity).createQueryBuilder('f').where('true');
    if (symbol !== undefined) qb.andWhere('f.symbol = :symbol', { symbol });
    return window(qb, 'f.funding_time', 'f.symbol', page);
  }

  /** The latest settled funding rate of each symbol that has one (by symbol). */
  latestFundingRates(): Promise<FundingRateEntity[]> {
    return this.manager
      .getRepository(FundingRateEntity)
      .createQueryBuilder('f')
      .distinctOn(['f.symbol'])
      .orderBy('f.symbol')
      .addOrderBy('f.funding_time', 'DESC')
      .getMany();
  }
}

/** Binance's paging: ascending from startTime, else the newest `limit` up to endTime, oldest first. */
async function window<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  timeColumn: string,
  tieBreak: string,
  page: SeriesWindow,
): Promise<T[]> {
  if (page.startTime !== undefined) qb.andWhere(`${timeColumn} >= :startTime`, page);
  if (page.endTime !== undefined) qb.andWhere(`${timeColumn} <= :endTime`, page);
  if (page.startTime !== undefined)
    return qb.orderBy(timeColumn, 'ASC').addOrderBy(tieBreak, 'ASC').limit(page.limit).getMany();
  const rows = await qb.orderBy(timeColumn, 'DESC').addOrderBy(tieBreak, 'DESC').limit(page.limit).getMany();
  return rows.reverse();
}
