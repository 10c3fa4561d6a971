import { Money } from '@perp/domain';
import type { ForceOrderEntity } from '@perp/persistence';

/**
 * A force-order row as Binance's `GET /fapi/v1/forceOrders` answers it, with the spec's `type`
 * (LIQUIDATION, for both kinds of rows); Binance's `clientOrderId` prefixes tell the kinds apart
 * (`autoclose-` a liquidation, `adl_autoclose-` an ADL close).
 */
export function forceOrderView(f: ForceOrderEntity) {
  const adl = f.autoCloseType === 'ADL';
  return {
    orderId: f.orderId,
    symbol: f.symbol,
    status: 'FILLED' as const,
    clientOrderId: `${adl ? 'adl_autoclose' : 'autoclose'}-${f.orderId}`,
    price: f.price,
    avgPrice: f.avgPrice,
    origQty: f.origQty,
    executedQty: f.executedQty,
    cumQuote: new Money(f.executedQty).times(f.avgPrice).toFixed(),
    timeInForce: adl ? ('GTC' as const) : ('IOC' as const),
    type: 'LIQUIDATION' as const,
    reduceOnly: true as const,
    closePosition: false as const,
    side: f.side,
    positionSide: 'BOTH' as const,
    stopPrice: '0' as const,
    workingType: 'CONTRACT_PRICE' as const,
    origType: 'LIMIT' as const,
    time: f.time,
    updateTime: f.updateTime,
  };
}

export type AdlQuantileView = { symbol: string; adlQuantile: { LONG: number; SHORT: number; BOTH: number } };

/**
 * Binance's one-way reading: BOTH is the position's quantile, and LONG or SHORT (the side the
 * position is on) repeats it, the other side 0. A rank of the other side (a flip since the
 * engine's last list) or none yet reads 0, as does no position.
 */
export function adlQuantileView(
  symbol: string,
  size: Money | undefined,
  rank: { side: 'LONG' | 'SHORT'; quantile: number } | undefined,
): AdlQuantileView {
  const side = size === undefined || size.isZero() ? undefined : size.gt(0) ? 'LONG' : 'SHORT';
  const q = side && rank?.side === side ? rank.quantile : 0;
  return {
    symbol,
    adlQuantile: { LONG: side === 'LONG' ? q : 0, SHORT: side === 'SHORT' ? q : 0, BOTH: q },
  };
}
