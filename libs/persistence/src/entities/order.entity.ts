import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

export type OrderSide = 'BUY' | 'SELL';
export type OrderStatus = 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'REJECTED' | 'EXPIRED';
export const OPEN_ORDER_STATUSES: readonly OrderStatus[] = ['NEW', 'PARTIALLY_FILLED'];

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const ms = { type: 'bigint', transformer: epochMsTransformer } as const;

/** Order history projection (engine events); field names follow the FAPI order record. */
@Entity({ name: 'orders' })
@Index('orders_user_symbol_updated_idx', ['userId', 'symbol', 'updatedAt', 'id'])
@Index('orders_user_symbol_client_idx', ['userId', 'symbol', 'clientOrderId'])
export class OrderEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  symbol!: string;

  @Column({ name: 'client_order_id', type: 'text' })
  clientOrderId!: string;

  @Column({ type: 'text' })
  side!: OrderSide;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'orig_type', type: 'text' })
  origType!: string;

  @Column({ name: 'time_in_force', type: 'text' })
  timeInForce!: string;

  @Column({ ...decimal, default: 0 })
  price!: string;

  @Column({ ...decimal, name: 'orig_qty' })
  origQty!: string;

  @Column({ ...decimal, name: 'executed_qty', default: 0 })
  executedQty!: string;

  @Column({ ...decimal, name: 'cum_quote', default: 0 })
  cumQuote!: string;

  @Column({ ...decimal, name: 'avg_price', default: 0 })
  avgPrice!: string;

  @Column({ type: 'text' })
  status!: OrderStatus;

  @Column({ name: 'reduce_only', type: 'boolean', default: false })
  reduceOnly!: boolean;

  @Column({ name: 'price_protect', type: 'boolean', default: false })
  priceProtect!: boolean;

  @Column({ ...decimal, name: 'stop_price', default: 0 })
  stopPrice!: string;

  @Column({ name: 'working_type', type: 'text', default: 'CONTRACT_PRICE' })
  workingType!: string;

  @Column({ name: 'position_side', type: 'text', default: 'BOTH' })
  positionSide!: string;

  @Column({ name: 'self_trade_prevention_mode', type: 'text', default: 'EXPIRE_TAKER' })
  selfTradePreventionMode!: string;

  @Column({ ...ms, name: 'created_at' })
  createdAt!: number;

  @Column({ ...ms, name: 'updated_at' })
  updatedAt!: number;
}
