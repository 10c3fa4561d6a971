import type { AccountEvent } from '@perp/contracts';
import { type Market, type MarketStream, Money } from '@perp/domain';
import { amount, price, quantity } from '../fapi/account/format';
import type { SortedDepth } from '../fapi/market/depth-view';
import type { z } from 'zod';
import type * as N from './asyncapi/native-messages';

/** The `data` of a native channel frame. */
type Data<T extends z.ZodType<{ data: unknown }>> = z.output<T>['data'];

/**
 * The data of native channels: snake_case fields, decimal strings, times in ms. Public channels are
 * rendered from the Binance payload of the same stream (already at the market's precisions), so the
 * two surfaces never disagree; private ones from the account events.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- Binance payloads of market-payloads.ts, read by field */
type Payload = Record<string, any>;

/** The native form of a market stream's event, by the stream it came from. */
export function nativeMarketData(s: MarketStream, p: Payload): unknown {
  switch (s.kind) {
    case 'ticker':
      return {
        symbol: p.s,
        last_price: p.c,
        last_quantity: p.Q,
        price_change: p.p,
        price_change_percent: p.P,
        weighted_average_price: p.w,
        open_price: p.o,
        high_price: p.h,
        low_price: p.l,
        volume: p.v,
        quote_volume: p.q,
        trade_count: p.n,
        open_time: p.O,
        close_time: p.C,
      };
    case 'trade':
      return { id: p.t, symbol: p.s, price: p.p, quantity: p.q, side: p.m ? 'sell' : 'buy', time: p.T };
    case 'depth':
      return { symbol: p.s, first_seq: p.U, seq: p.u, prev_seq: p.pu, bids: p.b, asks: p.a, time: p.T };
    case 'kline':
      return {
        symbol: p.s,
        interval: p.k.i,
        open_time: p.k.t,
        close_time: p.k.T,
        open: p.k.o,
        high: p.k.h,
        low: p.k.l,
        close: p.k.c,
        volume: p.k.v,
        quote_volume: p.k.q,
        trade_count: p.k.n,
        closed: p.k.x,
      };
    case 'markPrice':
      return {
        symbol: p.s,
        mark_price: p.p,
        index_price: p.i,
        funding_rate: p.r,
        next_funding_time: p.T,
        time: p.E,
      };
    default:
      return p;
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** `orderbook:<symbol>`'s first frame: the whole projected book and the sequence it is at. */
export function nativeBookSnapshot(m: Market, book: SortedDepth): Data<typeof N.NativeBookSnapshot> {
  return { symbol: m.symbol, seq: Math.max(book.seq, 0), bids: book.bids, asks: book.asks, time: book.time };
}

type Of<T extends AccountEvent['type']> = Extract<AccountEvent, { type: T }>;

/** `balances`: the wallet after a change and the margin its orders hold. */
export function nativeBalanceUpdate(e: Of<'balance'>): Data<typeof N.NativeBalanceUpdate> {
  return {
    asset: e.asset,
    wallet_balance: amount(new Money(e.walletBalance)),
    order_margin: amount(new Money(e.frozen)),
    time: e.time,
  };
}

/** `positions`: a position after a fill (size 0: closed); marks and PnL are GET /api/v1/account's. */
export function nativePositionUpdate(
  e: Of<'position'>,
  m: Market | undefined,
): Data<typeof N.NativePositionUpdate> {
  const size = new Money(e.size);
  return {
    symbol: e.symbol,
    side: size.isZero() ? null : size.gt(0) ? 'long' : 'short',
    size: quantity(size.abs(), m),
    entry_price: price(new Money(e.entryPrice)),
    leverage: e.leverage,
    time: e.time,
  };
}
