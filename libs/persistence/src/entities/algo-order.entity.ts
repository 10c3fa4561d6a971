import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { epochMsTransformer } from '../columns';

const int8 = { type: 'bigint', transformer: epochMsTransformer } as const;

/**
 * Algo order history projection (account events): the latest record of each algo order, whole, as
 * risk published it (`record`, the contracts' algo order record as JSON); the columns are what
 * queries filter by.
 */
@Entity({ name: 'algo_orders' })
@Index('algo_orders_user_symbol_created_idx', ['userId', 'symbol', 'createdAt', 'algoId'])
@Index('algo_orders_user_client_idx', ['userId', 'clientAlgoId'])
export class AlgoOrderEntity {
  @PrimaryColumn({ name: 'algo_id', ...int8 })
  algoId!: number;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  symbol!: string;

  @Column({ name: 'client_algo_id', type: 'text' })
  clientAlgoId!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ name: 'created_at', ...int8 })
  createdAt!: number;

  @Column({ name: 'updated_at', ...int8 })
  updatedAt!: number;

  /** The record as JSON text (read back whole, never queried inside). */
  @Column({ type: 'text' })
  record!: string;
}
