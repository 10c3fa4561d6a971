import type { FeeRates, Market } from '@perp/domain';
import { rate } from './format';

/**
 * One symbol of GET /fapi/v1/leverageBracket (Binance "Notional and Leverage Brackets"): the
 * market's configured maintenance brackets, numbered from 1, each from the previous cap (floor) to
 * its own cap. Numbers, as Binance sends them (configuration values with short exact decimals);
 * notionalCoef is left out, as Binance does when the user's brackets are not adjusted. The user's
 * leverage setting never changes them.
 */
export function leverageBracketView(market: Market) {
  let floor = '0';
  return {
    symbol: market.symbol,
    brackets: market.maintenanceBrackets.map((b, i) => {
      const row = {
        bracket: i + 1,
        initialLeverage: b.maxLeverage,
        notionalCap: Number(b.notionalCap),
        notionalFloor: Number(floor),
        maintMarginRatio: Number(b.maintMarginRatio),
        cum: Number(b.cum),
      };
      floor = b.notionalCap;
      return row;
    }),
  };
}

/** GET /fapi/v1/commissionRate: the rates the account's live VIP tier charges, as decimal strings. */
export function commissionRateView(symbol: string, rates: FeeRates) {
  return {
    symbol,
    makerCommissionRate: rate(rates.maker),
    takerCommissionRate: rate(rates.taker),
  };
}
