import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimalTransformer, epochMsTransformer } from '../columns';

export type IncomeType = 'REALIZED_PNL' | 'FUNDING_FEE' | 'COMMISSION' | 'INSURANCE_CLEAR';
export const INCOME_TYPES: readonly IncomeType[] = [
  'REALIZED_PNL',
  'FUNDING_FEE',
  'COMMISSION',
  'INSURANCE_CLEAR',
];

/** Income history (GET /fapi/v1/income): signed amounts settled by risk. */
@Entity({ name: 'income' })
@Index('income_user_time_idx', ['userId', 'time', 'id'])
@Index('income_user_type_time_idx', ['userId', 'incomeType', 'time', 'id'])
export class IncomeEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text', default: '' })
  symbol!: string;

  @Column({ name: 'income_type', type: 'text' })
  incomeType!: IncomeType;

  @Column({ type: 'numeric', transformer: decimalTransformer })
  income!: string;

  @Column({ type: 'text', default: 'USDT' })
  asset!: string;

  @Column({ type: 'text', default: '' })
  info!: string;

  /** Id of the source row (trade or funding settlement); FAPI shows it as tradeId and tranId. */
  @Column({ name: 'trade_id', type: 'text', default: '' })
  tradeId!: string;

  @Column({ type: 'bigint', transformer: epochMsTransformer })
  time!: number;
}
