import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';
import type { OrderSide } from './order.entity';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;

/** One side of a fill (a match gives a maker row and a taker row). */
@Entity({ name: 'trades' })
@Index('trades_user_time_idx', ['userId', 'time', 'id'])
@Index('trades_user_symbol_time_idx', ['userId', 'symbol', 'time', 'id'])
@Index('trades_order_id_idx', ['orderId'])
export class TradeEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @PrimaryColumn({ name: 'order_id', type: 'uuid' })
  orderId!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  symbol!: string;

  @Column({ type: 'text' })
  side!: OrderSide;

  @Column(decimal)
  price!: string;

  @Column(decimal)
  qty!: string;

  @Column({ ...decimal, name: 'quote_qty' })
  quoteQty!: string;

  @Column(decimal)
  commission!: string;

  @Column({ name: 'commission_asset', type: 'text', default: 'USDT' })
  commissionAsset!: string;

  @Column({ ...decimal, name: 'realized_pnl', default: 0 })
  realizedPnl!: string;

  @Column({ type: 'boolean' })
  maker!: boolean;

  @Column({ type: 'bigint', transformer: epochMsTransformer })
  time!: number;
}
