import type { AccountEvent } from '@perp/contracts';
import { type Market, Money } from '@perp/domain';
import { amount, price, quantity } from '../fapi/account/format';
import type * as W from './asyncapi/binance-messages';
import type { Msg } from './asyncapi/binance-messages';

/** Binance USDⓈ-M user data stream events, from the account events of one risk input. */

type Of<T extends AccountEvent['type']> = Extract<AccountEvent, { type: T }>;
export type AccountUpdateReason = (typeof W.ACCOUNT_UPDATE_REASONS)[number];

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
): Msg<typeof W.OrderTradeUpdate> {
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

const income = (events: readonly AccountEvent[], type: Of<'income'>['incomeType']) =>
  events.some((e) => e.type === 'income' && e.incomeType === type);

/**
 * Why one input moved the account (ACCOUNT_UPDATE's `m`), most specific first: an ADL close (its
 * force order is among the events), the liquidation clearance fee (INSURANCE_CLEAR income), a fill,
 * a funding fee, a deposit (a balance alone); undefined for anything else.
 */
export function updateReason(events: readonly AccountEvent[]): AccountUpdateReason | undefined {
  const types = new Set(events.map((e) => e.type));
  if (events.some((e) => e.type === 'forceOrder' && e.forceOrder.autoCloseType === 'ADL')) return 'ADL';
  if (income(events, 'INSURANCE_CLEAR')) return 'INSURANCE_CLEAR';
  if (types.has('trade')) return 'ORDER';
  if (income(events, 'FUNDING_FEE')) return 'FUNDING_FEE';
  return types.size === 1 && types.has('balance') ? 'DEPOSIT' : undefined;
}

/**
 * ACCOUNT_UPDATE of one input, or undefined when it moved neither the wallet nor a position (an
 * order placed or canceled only freezes or releases margin: Binance sends nothing then).
 * `previousWallet`: the wallet before (as its balance event carried it), when this replica knows it
 * (for `bc`, deposits only).
 */
export function accountUpdate(
  change: AccountChange,
  previousWallet: string | undefined,
  now: number,
): Msg<typeof W.AccountUpdate> | undefined {
  const reason = updateReason(change.events);
  if (!reason) return undefined;
  const balances = change.events.filter((e): e is Of<'balance'> => e.type === 'balance');
  const positions = change.events.filter((e): e is Of<'position'> => e.type === 'position');
  if (balances.length === 0 && positions.length === 0) return undefined;
  const last = balances[balances.length - 1];
  const B = last
    ? [
        {
          a: last.asset,
          wb: amount(new Money(last.walletBalance)),
          cw: amount(new Money(last.walletBalance)),
          bc:
            reason === 'DEPOSIT' && previousWallet
              ? amount(new Money(last.walletBalance).minus(new Money(previousWallet)))
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
    ps: 'BOTH' as const,
  }));
  return { e: 'ACCOUNT_UPDATE', E: now, T: change.time, a: { m: reason, B, P } };
}

/** ACCOUNT_CONFIG_UPDATE: the leverage of a symbol changed. */
export function accountConfigUpdate(e: Of<'leverage'>, now: number): Msg<typeof W.AccountConfigUpdate> {
  return { e: 'ACCOUNT_CONFIG_UPDATE', E: now, T: e.time, ac: { s: e.symbol, l: e.leverage } };
}

/** MARGIN_CALL: the account reached the margin-call level; its positions at risk at that mark. */
export function marginCall(e: Of<'marginCall'>, now: number): Msg<typeof W.MarginCall> {
  return {
    e: 'MARGIN_CALL',
    E: now,
    cw: amount(new Money(e.crossWalletBalance)),
    p: e.positions.map((p) => ({
      s: p.symbol,
      ps: p.positionSide,
      pa: p.positionAmt,
      mt: p.marginType,
      iw: amount(new Money(p.isolatedWallet)),
      mp: price(new Money(p.markPrice)),
      up: amount(new Money(p.unrealizedPnl)),
      mm: amount(new Money(p.maintMargin)),
    })),
  };
}

/**
 * ALGO_UPDATE: an algo (conditional) order's record after a change. `fired` is the order it fired
 * as, when the same input carried it (its fills and type in the engine: `ap`, `aq`, `act`).
 */
export function algoUpdate(
  a: Of<'algoOrder'>['algo'],
  fired: Of<'order'>['order'] | undefined,
  now: number,
): Msg<typeof W.AlgoUpdate> {
  return {
    e: 'ALGO_UPDATE',
    T: a.updateTime,
    E: now,
    o: {
      caid: a.clientAlgoId,
      aid: a.algoId,
      at: a.algoType,
      o: a.orderType,
      s: a.symbol,
      S: a.side,
      ps: a.positionSide,
      f: a.timeInForce,
      q: a.quantity,
      X: a.algoStatus,
      ai: a.actualOrderId,
      ap: fired?.avgPrice ?? '0',
      aq: fired?.executedQty ?? '0',
      act: fired?.type ?? '0',
      tp: a.triggerPrice,
      p: a.price,
      V: 'NONE',
      wt: a.workingType,
      pm: 'NONE',
      cp: a.closePosition,
      pP: a.priceProtect,
      R: a.reduceOnly,
      tt: a.triggerTime,
      gtd: a.goodTillDate,
      rm: a.reason ?? '',
    },
  };
}

/**
 * `<symbol>@forceOrder` and `!forceOrder@arr`: a liquidation order once complete (IOC at the
 * bankruptcy price: FILLED, or EXPIRED with the part the book and ADL could not close).
 */
export function forceOrderPayload(
  m: Market | undefined,
  f: Of<'forceOrder'>['forceOrder'],
  now: number,
): Msg<typeof W.ForceOrderEvent> {
  const executed = new Money(f.executedQty);
  const px = (v: string) => (m ? new Money(v).toFixed(m.pricePrecision) : v);
  return {
    e: 'forceOrder',
    E: now,
    o: {
      s: f.symbol,
      S: f.side,
      o: 'LIMIT',
      f: 'IOC',
      q: quantity(new Money(f.origQty), m),
      p: px(f.price),
      ap: px(f.avgPrice),
      X: executed.gte(f.origQty) ? 'FILLED' : 'EXPIRED',
      l: quantity(executed, m),
      z: quantity(executed, m),
      T: f.updateTime,
    },
  };
}
