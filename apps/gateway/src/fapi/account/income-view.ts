import { parseDecimal } from '@perp/domain';
import type { IncomeEntity } from '@perp/persistence';

/** The spec's Income record: tranId and tradeId are both the source row's id (a trade or a funding). */
export function incomeView(i: IncomeEntity) {
  return {
    symbol: i.symbol,
    incomeType: i.incomeType,
    income: i.income,
    asset: i.asset,
    info: i.info,
    time: i.time,
    tranId: i.tradeId,
    tradeId: i.tradeId,
  };
}

/**
 * A row of GET /fapi/v1/fundingFeeHistory: a FUNDING_FEE income record plus `fundingRate`, the
 * rate the payment was settled at (risk writes it as the record's info), when it reads as one.
 */
export function fundingFeeView(i: IncomeEntity) {
  const rate = parseDecimal(i.info);
  const { symbol, incomeType, income, asset, info, time, tranId, tradeId } = incomeView(i);
  return {
    symbol,
    incomeType,
    income,
    asset,
    ...(rate ? { fundingRate: rate.toFixed() } : {}),
    info,
    time,
    tranId,
    tradeId,
  };
}
