import type { AccountEvent } from '@perp/contracts';
import { type Market, Money } from '@perp/domain';
import { amount, price, quantity } from '../fapi/account/format';

/** Binance USDⓈ-M user data stream events, from the account events of one risk input. */

type Of<T extends AccountEvent['type']> = Extract<AccountEvent, { type: T }>;
export type AccountUpdateReason = 'ORDER' | 'FUNDING_FEE' | 'DEPOSIT';

/**
 * What one input (a command or an engine event, as the events' ids name it) did to one account:
 * its events in the order risk emitted them.
 */
export interface AccountChange {
  user: string;
  time: number;
  events: AccountEvent[];
}

const ZERO = new Money(0);

/** ORDER_TRADE_UPDATE: the order after the change; a fill carries its trade (x = TRADE). */
export function orderTradeUpdate(
  m: Market | undefined,
  o: Of<'order'>['order'],
  fill: Of<'trade'>['trade'] | undefined,
  now: number,
) {
  const executionType = fill
    ? 'TRADE'
    : o.status === 'CANCELED' || o.status === 'REJECTED'
      ? o.status
      : o.updateTime !== o.time
        ? 'AMENDMENT'
        : 'NEW';
  return {
    e: 'ORDER_TRADE_UPDATE',
    E: now,
    T: o.updateTime,
    o: {
      s: o.symbol,
      c: o.clientOrderId,
      S: o.side,
      o: o.type,
      f: o.timeInForce,
      q: o.origQty,
      p: o.price,
      ap: o.avgPrice,
      sp: o.stopPrice,
      x: executionType,
      X: o.status,
      i: o.orderId,
      l: fill ? quantity(new Money(fill.qty), m) : '0',
      z: o.executedQty,
      L: fill ? fill.price : '0',
      N: fill?.commissionAsset ?? 'USDT',
      n: fill ? amount(new Money(fill.commission)) : '0',
      T: fill?.time ?? o.updateTime,
      t: fill?.tradeId ?? 0,
      b: '0',
      a: '0',
      m: fill?.maker ?? false,
      R: o.reduceOnly,
      wt: o.workingType,
      ot: o.origType,
      ps: o.positionSide,
      cp: false,
      rp: fill ? amount(new Money(fill.realizedPnl)) : '0',
      pP: o.priceProtect,
      si: 0,
      ss: 0,
      V: o.selfTradePreventionMode,
      pm: 'NONE',
      gtd: 0,
    },
  };
}

/**
 * ACCOUNT_UPDATE of one input, or undefined when it moved neither the wallet nor a position (an
 * order placed or canceled only freezes or releases margin: Binance sends nothing then).
 * `previousWallet`: the wallet before, when this replica knows it (for `bc`, deposits only).
 */
export function accountUpdate(change: AccountChange, previousWallet: Money | undefined, now: number) {
  const types = new Set(change.events.map((e) => e.type));
  const funding = change.events.some((e) => e.type === 'income' && e.incomeType === 'FUNDING_FEE');
  const reason: AccountUpdateReason | undefined = types.has('trade')
    ? 'ORDER'
    : funding
      ? 'FUNDING_FEE'
      : types.size === 1 && types.has('balance')
        ? 'DEPOSIT'
        : undefined;
  if (!reason) return undefined;
  const balances = change.events.filter((e): e is Of<'balance'> => e.type === 'balance');
  const positions = change.events.filter((e): e is Of<'position'> => e.type === 'position');
  const last = balances[balances.length - 1];
  const B = last
    ? [
        {
          a: last.asset,
          wb: amount(new Money(last.walletBalance)),
          cw: amount(new Money(last.walletBalance)),
          bc:
            reason === 'DEPOSIT' && previousWallet
              ? amount(new Money(last.walletBalance).minus(previousWallet))
              : amount(ZERO),
        },
      ]
    : [];
  const P = positions.map((p) => ({
    s: p.symbol,
    pa: p.size,
    ep: price(new Money(p.entryPrice)),
    bep: price(new Money(p.entryPrice)),
    cr: '0',
    up: '0',
    mt: 'cross',
    iw: '0',
    ps: 'BOTH',
  }));
  return { e: 'ACCOUNT_UPDATE', E: now, T: change.time, a: { m: reason, B, P } };
}
