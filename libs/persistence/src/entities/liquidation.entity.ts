import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';
import type { OrderSide } from './order.entity';

const decimal = { type: 'numeric', transformer: decimalTransformer } as const;
const ms = { type: 'bigint', transformer: epochMsTransformer } as const;

export type AutoCloseType = 'LIQUIDATION' | 'ADL';
export const AUTO_CLOSE_TYPES: readonly AutoCloseType[] = ['LIQUIDATION', 'ADL'];

/**
 * A force order (GET /fapi/v1/forceOrders): a liquidation of the user's position or an ADL close
 * of it, from the `forceOrder` account event. The id derives from the event's id, so a replayed
 * event is the same row. ADL rows are also the native ADL history and the symbol's ADL events.
 */
@Entity({ name: 'force_orders' })
@Index('force_orders_user_time_idx', ['userId', 'time', 'id'])
@Index('force_orders_user_type_time_idx', ['userId', 'autoCloseType', 'time', 'id'])
@Index('force_orders_symbol_type_time_idx', ['symbol', 'autoCloseType', 'time', 'id'])
export class ForceOrderEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'order_id', type: 'text' })
  orderId!: string;

  @Column({ type: 'text' })
  symbol!: string;

  @Column({ name: 'auto_close_type', type: 'text' })
  autoCloseType!: AutoCloseType;

  @Column({ type: 'text' })
  side!: OrderSide;

  /** Liquidation: the bankruptcy price; ADL: the close price. */
  @Column(decimal)
  price!: string;

  @Column({ name: 'avg_price', ...decimal })
  avgPrice!: string;

  @Column({ name: 'orig_qty', ...decimal })
  origQty!: string;

  @Column({ name: 'executed_qty', ...decimal })
  executedQty!: string;

  /** Clearance fee paid to the insurance fund (0 for ADL). */
  @Column(decimal)
  fee!: string;

  @Column(ms)
  time!: number;

  @Column({ name: 'update_time', ...ms })
  updateTime!: number;
}

export type InsuranceMovementKind = 'LIQUIDATION_FEE' | 'BANKRUPTCY_LOSS' | 'FUNDING_DUST';

/**
 * A movement of one risk partition's share of the insurance fund (the `insurance` account
 * event). `balance` is the share after it; the fund is the sum over partitions of each one's
 * latest share, latest by the event's place in its partition (source offset, then index).
 */
@Entity({ name: 'insurance_fund_movements' })
@Index('insurance_fund_movements_time_idx', ['time', 'id'])
@Index('insurance_fund_movements_place_idx', ['partition', 'sourceOffset', 'sourceIndex'])
export class InsuranceMovementEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** The risk partition whose share moved. */
  @Column({ type: 'integer' })
  partition!: number;

  @Column({ type: 'text' })
  symbol!: string;

  @Column({ type: 'text' })
  kind!: InsuranceMovementKind;

  /** Signed: + into the fund, - out of it. */
  @Column(decimal)
  amount!: string;

  @Column(decimal)
  balance!: string;

  /** The liquidation, trade or funding round behind it. */
  @Column({ type: 'text' })
  ref!: string;

  @Column(ms)
  time!: number;

  /** Offset of the risk input that produced it, and the event's index among that input's outputs. */
  @Column({ name: 'source_offset', type: 'bigint' })
  sourceOffset!: string;

  @Column({ name: 'source_index', type: 'integer' })
  sourceIndex!: number;
}
