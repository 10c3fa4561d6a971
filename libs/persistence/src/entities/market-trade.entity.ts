import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';
import type { OrderSide } from './order.entity';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const ms = { type: 'bigint', transformer: epochMsTransformer } as const;

/** A public trade: `id` is the engine's per-symbol sequence number of the fill. */
@Entity({ name: 'market_trades' })
@Index('market_trades_symbol_time_idx', ['symbol', 'time', 'id'])
@Check('market_trades_taker_side_check', `taker_side IN ('BUY', 'SELL')`)
export class MarketTradeEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ ...ms })
  id!: number;

  @Column({ name: 'trade_id', type: 'uuid' })
  tradeId!: string;

  @Column(decimal)
  price!: string;

  @Column(decimal)
  qty!: string;

  @Column({ ...decimal, name: 'quote_qty' })
  quoteQty!: string;

  @Column({ name: 'taker_side', type: 'text' })
  takerSide!: OrderSide;

  @Column({ name: 'taker_order_id', type: 'text' })
  takerOrderId!: string;

  @Column(ms)
  time!: number;
}

/** Consecutive fills of one taker order at one price; `id` is the first trade's id. */
@Entity({ name: 'market_agg_trades' })
@Index('market_agg_trades_symbol_time_idx', ['symbol', 'time', 'id'])
export class MarketAggTradeEntity {
  @PrimaryColumn({ type: 'text' })
  symbol!: string;

  @PrimaryColumn({ ...ms })
  id!: number;

  @Column(decimal)
  price!: string;

  @Column(decimal)
  qty!: string;

  @Column({ ...ms, name: 'first_id' })
  firstId!: number;

  @Column({ ...ms, name: 'last_id' })
  lastId!: number;

  @Column(ms)
  time!: number;

  @Column({ name: 'buyer_maker', type: 'boolean' })
  buyerMaker!: boolean;

  @Column({ name: 'taker_order_id', type: 'text' })
  takerOrderId!: string;
}
