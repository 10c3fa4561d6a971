import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const ms = { type: 'bigint', transformer: epochMsTransformer } as const;

export type CandleSeriesName = 'last' | 'mark' | 'index' | 'premium';

/** One candle of one interval of one price series (true buckets: every interval kept as itself). */
@Entity({ name: 'market_candles' })
@Check('market_candles_series_check', `series IN ('last', 'mark', 'index', 'premium')`)
export class MarketCandleEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ type: 'text' })
  series!: CandleSeriesName;

  @PrimaryColumn({ type: 'text' })
  interval!: string;

  @PrimaryColumn({ ...ms, name: 'open_time' })
  openTime!: number;

  @Column({ ...ms, name: 'close_time' })
  closeTime!: number;

  @Column(decimal)
  open!: string;

  @Column(decimal)
  high!: string;

  @Column(decimal)
  low!: string;

  @Column(decimal)
  close!: string;

  @Column(decimal)
  volume!: string;

  @Column({ ...decimal, name: 'quote_volume' })
  quoteVolume!: string;

  @Column({ type: 'integer' })
  count!: number;

  @Column({ ...decimal, name: 'taker_buy_volume' })
  takerBuyVolume!: string;

  @Column({ ...decimal, name: 'taker_buy_quote_volume' })
  takerBuyQuoteVolume!: string;
}

/** One minute of a symbol's trades as the rolling 24 h ticker keeps it (kept for 25 hours). */
@Entity({ name: 'market_ticker_minutes' })
export class MarketTickerMinuteEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ ...ms, name: 'open_time' })
  openTime!: number;

  @Column(decimal)
  open!: string;

  @Column(decimal)
  high!: string;

  @Column(decimal)
  low!: string;

  @Column(decimal)
  close!: string;

  @Column(decimal)
  volume!: string;

  @Column({ ...decimal, name: 'quote_volume' })
  quoteVolume!: string;

  @Column({ type: 'integer' })
  count!: number;

  @Column({ ...ms, name: 'first_time' })
  firstTime!: number;

  @Column({ ...ms, name: 'last_time' })
  lastTime!: number;

  @Column({ ...decimal, name: 'last_qty' })
  lastQty!: string;
}
