import { type Market, Money } from '@perp/domain';
import type { OpenInterest } from '@perp/contracts';
import { amount, price, quantity } from '../../fapi/account/format';

/**
 * The spec's open interest of a symbol: long_oi + short_oi in base units (Binance counts one side;
 * the two are equal in a matched market, so the spec's figure is twice Binance's). FAPI's
 * openInterest and openInterestHist and the native view's two sides all read this definition.
 */
export function totalOpenInterest(oi: Pick<OpenInterest, 'long' | 'short'>): Money {
  return oi.long.plus(oi.short);
}

/** GET /fapi/v1/openInterest: the total at the market's lot precision; `time` = the reading's time. */
export function fapiOpenInterest(market: Market, oi: OpenInterest, now: number) {
  return { openInterest: quantity(totalOpenInterest(oi), market), symbol: market.symbol, time: now };
}

/** Base units at the market's lot precision; USD at 8 decimals and null while no mark price is known. */
export interface NativeOpenInterestView {
  symbol: string;
  long_oi: string;
  short_oi: string;
  long_oi_usd: string | null;
  short_oi_usd: string | null;
  /** Per-side caps in base units (the engine refuses orders that would open beyond them). */
  max_long_oi: string;
  max_short_oi: string;
  max_long_oi_usd: string | null;
  max_short_oi_usd: string | null;
  mark_price: string | null;
  /** Time of the last trade that changed the figures; null before the first one. */
  updated_at: string | null;
}

export function nativeOpenInterest(
  market: Market,
  oi: OpenInterest,
  mark: Money | undefined,
): NativeOpenInterestView {
  const usd = (base: Money) => (mark ? amount(base.times(mark)) : null);
  const maxLong = new Money(market.maxLongOi);
  const maxShort = new Money(market.maxShortOi);
  return {
    symbol: market.symbol,
    long_oi: quantity(oi.long, market),
    short_oi: quantity(oi.short, market),
    long_oi_usd: usd(oi.long),
    short_oi_usd: usd(oi.short),
    max_long_oi: maxLong.toFixed(),
    max_short_oi: maxShort.toFixed(),
    max_long_oi_usd: usd(maxLong),
    max_short_oi_usd: usd(maxShort),
    mark_price: mark ? price(mark) : null,
    updated_at: oi.time > 0 ? new Date(oi.time).toISOString() : null,
  };
}
