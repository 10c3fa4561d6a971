import { Column, Entity, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const int64 = { type: 'bigint', transformer: epochMsTransformer } as const;

/**
 * A symbol's latest `price.mark` event (mark, index and last price, the funding rate it predicts),
 * so that market data can write the hot store's price hash again after a restart: with operator
 * prices (PRICE_SOURCE=admin) the next event may be a long way off. `partition` is the prices
 * partition the symbol's events arrive on, so that a partition's new owner finds its symbols.
 */
@Entity({ name: 'market_prices' })
export class MarketPriceEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @Column({ type: 'integer' })
  partition!: number;

  @Column({ ...decimal, name: 'mark_price' })
  markPrice!: string;

  @Column({ ...decimal, name: 'index_price' })
  indexPrice!: string;

  @Column({ ...decimal, name: 'last_price' })
  lastPrice!: string;

  @Column({ ...decimal, name: 'funding_rate' })
  fundingRate!: string;

  @Column({ ...int64, name: 'next_funding_time' })
  nextFundingTime!: number;

  @Column(int64)
  time!: number;
}
