import { Column, Entity, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const ms = { type: 'bigint', transformer: epochMsTransformer } as const;

/**
 * Futures-data figures of one symbol in one period bucket (`time` = the bucket's open), as they
 * stood at the last trade of the bucket: open interest (base units and USD) and the shares of
 * long and short accounts and positions (all accounts, and the top 20 % by position size).
 */
@Entity({ name: 'market_statistics' })
export class MarketStatisticEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ type: 'text' })
  period!: string;

  @PrimaryColumn(ms)
  time!: number;

  @Column({ ...decimal, name: 'open_interest' })
  openInterest!: string;

  @Column({ ...decimal, name: 'open_interest_value' })
  openInterestValue!: string;

  @Column({ ...decimal, name: 'long_accounts' })
  longAccounts!: string;

  @Column({ ...decimal, name: 'short_accounts' })
  shortAccounts!: string;

  @Column({ ...decimal, name: 'top_long_accounts' })
  topLongAccounts!: string;

  @Column({ ...decimal, name: 'top_short_accounts' })
  topShortAccounts!: string;

  @Column({ ...decimal, name: 'top_long_positions' })
  topLongPositions!: string;

  @Column({ ...decimal, name: 'top_short_positions' })
  topShortPositions!: string;
}

/** Market data's own copy of each account's signed position, followed from public fills. */
@Entity({ name: 'market_positions' })
export class MarketPositionEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ type: 'text' })
  user!: string;

  @Column(decimal)
  size!: string;
}

/** One settled funding rate of a symbol (written by the funding service). */
@Entity({ name: 'funding_rates' })
export class FundingRateEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ ...ms, name: 'funding_time' })
  fundingTime!: number;

  @Column({ ...decimal, name: 'funding_rate' })
  fundingRate!: string;

  @Column({ ...decimal, name: 'mark_price' })
  markPrice!: string;
}
