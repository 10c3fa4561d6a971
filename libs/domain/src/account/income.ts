import type { Money } from '../money/money';

export type IncomeType = 'REALIZED_PNL' | 'FUNDING_FEE' | 'COMMISSION' | 'INSURANCE_CLEAR';

/** An income record (spec: Income record); FAPI renders `income` as a string. */
export interface IncomeRecord {
  user: string;
  symbol: string;
  incomeType: IncomeType;
  /** Signed; COMMISSION is always negative. */
  income: Money;
  asset: string;
  info: string;
  time: number;
  /** Same value as tradeId: the fill's trade id, or the funding event's id. */
  tranId: string;
  tradeId: string;
}
