// Why this module is long: one model of several risk partitions and the engine (operations, settlement,
// invariants) that the account, solvency and liquidation property tests all drive.
import fc from 'fast-check';
import type { Market } from '../../markets/market';
import { Money } from '../../money/money';
import type { ForcedTradeKind } from '../../liquidation/liquidation-charges';
import { AccountBook, type AccountBookOptions } from '../account-book';
import { CLEARING_ACCOUNT, FEE_ACCOUNT, INSURANCE_FUND, walletOf } from '../ledger';
import { sideSign, type Side } from '../order';
import { signedCost, unrealizedPnl } from '../position';
import { BTC, ETH, FEE_TIERS, lookup, SOL } from './markets';

/*
 * Random trading against an AccountBook, shared by the property specs: the operations, their
 * generator and a minimal engine that drives the book and checks its invariants.
 */

export const USERS = ['u0', 'u1', 'u2', 'u3'];
export const MARKETS: Market[] = [BTC, ETH, SOL];
export const START_MARK: Record<string, string> = { BTCUSDT: '30000', ETHUSDT: '2000', SOLUSDT: '100' };
const ZERO = new Money(0);

export type Op =
  | { kind: 'deposit'; user: number; cents: number }
  | {
      kind: 'order';
      user: number;
      market: number;
      side: Side;
      type: 'LIMIT' | 'MARKET';
      lots: number;
      offsetBp: number;
      byQuote: boolean;
      reduceOnly: boolean;
      cid: number;
    }
  | { kind: 'cancel'; user: number; pick: number }
  | { kind: 'mark'; market: number; moveBp: number }
  | { kind: 'vip'; user: number; tier: number }
  | { kind: 'leverage'; user: number; market: number; leverage: number }
  | { kind: 'mode'; user: number; mode: string }
  | { kind: 'collateral'; user: number; market: number; add: boolean; cents: number }
  | { kind: 'funding'; market: number; rate: number };

const user = fc.integer({ min: 0, max: USERS.length - 1 });
const market = fc.integer({ min: 0, max: MARKETS.length - 1 });
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      user,
      cents: fc.integer({ min: 1, max: 2_000_000 }),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      user,
      market,
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      type: fc.constantFrom('LIMIT' as const, 'LIMIT' as const, 'LIMIT' as const, 'MARKET' as const),
      lots: fc.integer({ min: 1, max: 2000 }),
      offsetBp: fc.integer({ min: -100, max: 100 }),
      byQuote: fc.boolean(),
      reduceOnly: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      cid: fc.integer({ min: 0, max: 15 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), user, pick: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mark' as const),
      market,
      moveBp: fc.integer({ min: -800, max: 800 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('vip' as const), user, tier: fc.integer({ min: 0, max: 10 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('leverage' as const),
      user,
      market,
      leverage: fc.integer({ min: 0, max: 130 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mode' as const),
      user,
      mode: fc.constantFrom('CROSS', 'ISOLATED', 'UNIFIED', 'X'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('collateral' as const),
      user,
      market,
      add: fc.boolean(),
      cents: fc.integer({ min: 1, max: 50_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('funding' as const),
      market,
      rate: fc.integer({ min: -30_000, max: 30_000 }),
    }),
  },
);

/** The operations that touch one account of one book and nothing else. */
export type AccountOp = Extract<Op, { kind: 'vip' | 'leverage' | 'mode' | 'collateral' }>;

/** Applies an account operation to `book` (the user's risk partition) and checks its answer. */
export function applyAccountOp(book: AccountBook, op: AccountOp): void {
  const u = USERS[op.user];
  switch (op.kind) {
    case 'vip':
      expect(book.setVipTier(u, op.tier)).toBe(op.tier < FEE_TIERS.length);
      return;
    case 'leverage':
      book.setLeverage(u, MARKETS[op.market].symbol, op.leverage);
      return;
    case 'mode':
      book.setMarginMode(u, op.mode);
      return;
    case 'collateral': {
      const amount = new Money(op.cents).div(100);
      const symbol = MARKETS[op.market].symbol;
      if (op.add) book.addCollateral(u, symbol, amount);
      else book.removeCollateral(u, symbol, amount);
      expect(book.balances(u).isolatedMargin.gte(0)).toBe(true);
      return;
    }
  }
}

/** A mark moved by `moveBp` basis points, cut to the market's price precision (0 or less: ignore it). */
export function movedMark(mark: Money, m: Market, moveBp: number): Money {
  return mark
    .times(10_000 + moveBp)
    .div(10_000)
    .decimalPlaces(m.pricePrecision, Money.ROUND_DOWN);
}

export interface Resting {
  user: string;
  orderId: string;
  side: Side;
  price: Money;
  remaining: Money;
  reduceOnly: boolean;
  seq: number;
}

/** What the runs did, so a spec can assert they traded (filled, closed, rejected for margin). */
export interface SimulationStats {
  windFills: number;
  fills: number;
  closes: number;
  accepted: number;
  rejected: Map<string, number>;
  fundings: number;
}

export function newSimulationStats(): SimulationStats {
  return { windFills: 0, fills: 0, closes: 0, accepted: 0, rejected: new Map(), fundings: 0 };
}

/** One starting deposit (in cents) per user. */
export const initialDepositsArb = fc.array(fc.integer({ min: 1, max: 5_000_000 }), {
  minLength: USERS.length,
  maxLength: USERS.length,
});

export const BOOK_OPTIONS: AccountBookOptions = { markets: lookup(...MARKETS), feeTiers: FEE_TIERS };

/** The account book plus a minimal engine: price-time matching, no self-trades, its own positions. */
export class Simulation {
  readonly book = new AccountBook(BOOK_OPTIONS);
  protected readonly resting = new Map<string, Resting[]>(MARKETS.map((m) => [m.symbol, []]));
  private readonly engineSize = new Map<string, Money>();
  protected readonly marks = new Map<string, Money>();
  private seq = 0;

  constructor(readonly stats: SimulationStats = newSimulationStats()) {
    for (const m of MARKETS) this.setMark(m.symbol, new Money(START_MARK[m.symbol]));
  }

  /** Every call into the book goes through here, so a subclass can mirror it to a second book. */
  protected risk<T>(call: (book: AccountBook) => T): T {
    return call(this.book);
  }

  private setMark(symbol: string, price: Money): void {
    this.marks.set(symbol, price);
    this.risk((b) => b.setMarkPrice(symbol, price));
  }

  protected size(u: string, symbol: string): Money {
    return this.engineSize.get(`${u}|${symbol}`) ?? ZERO;
  }

  protected opposite(u: string, symbol: string, side: Side): Money {
    const s = this.size(u, symbol);
    return s.times(sideSign(side)).lt(0) ? s.abs() : ZERO;
  }

  /**
   * Both sides of one trade, settled by risk; the engine decides the open/close split. A `kind`
   * makes it a liquidation's trade: the taker is the liquidated side (forced settlement), the maker
   * settles as usual for LIQUIDATION and forced, fee-free, for ADL.
   */
  trade(
    symbol: string,
    maker: { user: string; orderId?: string; side: Side },
    taker: { user: string; orderId?: string },
    qty: Money,
    price: Money,
    kind?: ForcedTradeKind,
  ): void {
    const tradeId = `t${++this.seq}`;
    const takerSide: Side = maker.side === 'BUY' ? 'SELL' : 'BUY';
    for (const [u, orderId, side, liquidity] of [
      [maker.user, maker.orderId, maker.side, 'MAKER'],
      [taker.user, taker.orderId, takerSide, 'TAKER'],
    ] as const) {
      const before = this.size(u, symbol);
      const closeQty = before.times(sideSign(side)).lt(0) ? Money.min(before.abs(), qty) : ZERO;
      if (closeQty.gt(0)) this.stats.closes++;
      const fill = {
        user: u,
        orderId,
        symbol,
        side,
        qty,
        price,
        liquidity,
        closeQty,
        tradeId,
        time: this.seq,
      };
      if (kind && (kind === 'ADL' || liquidity === 'TAKER'))
        this.risk((b) => b.settleForcedFill(fill, kind, liquidity === 'TAKER'));
      else this.risk((b) => b.settleFill(fill));
      this.engineSize.set(`${u}|${symbol}`, before.plus(qty.times(sideSign(side))));
    }
    this.stats.fills++;
  }

  apply(op: Op): void {
    switch (op.kind) {
      case 'deposit': {
        const ref = `d${++this.seq}`;
        this.risk((b) => b.deposit(USERS[op.user], new Money(op.cents).div(100), ref));
        return;
      }
      case 'order':
        return this.order(op);
      case 'cancel': {
        const mine = [...this.resting.values()].flat().filter((r) => r.user === USERS[op.user]);
        if (mine.length === 0) return;
        const r = mine[op.pick % mine.length];
        this.cancel(r);
        return;
      }
      case 'mark': {
        const m = MARKETS[op.market];
        const next = movedMark(this.marks.get(m.symbol)!, m, op.moveBp);
        if (next.gt(0)) this.setMark(m.symbol, next);
        return;
      }
      case 'vip':
      case 'leverage':
      case 'mode':
      case 'collateral':
        return this.risk((b) => applyAccountOp(b, op));
      case 'funding': {
        const symbol = MARKETS[op.market].symbol;
        const rate = new Money(op.rate).shiftedBy(-8);
        const mark = this.marks.get(symbol)!;
        const before = this.risk((b) => b.ledger.balance(INSURANCE_FUND));
        let payers = 0;
        for (const u of USERS) {
          const time = this.seq;
          const id = `f${++this.seq}`;
          if (this.risk((b) => b.applyFunding(u, symbol, rate, mark, time, id)).income) payers++;
        }
        // The exact payments cancel out (long OI = short OI); rounding leaves the fund only dust.
        const dust = this.risk((b) => b.ledger.balance(INSURANCE_FUND)).minus(before);
        expect(dust.gte(0)).toBe(true);
        expect(dust.lte(new Money(payers).shiftedBy(-8))).toBe(true);
        this.stats.fundings++;
        return;
      }
    }
  }

  protected cancel(r: Resting): void {
    const list = this.resting.get(this.symbolOf(r))!;
    list.splice(list.indexOf(r), 1);
    expect(this.risk((b) => b.releaseOrder(r.user, r.orderId))).toBeDefined();
  }

  protected symbolOf(r: Resting): string {
    for (const [s, list] of this.resting) if (list.includes(r)) return s;
    throw new Error('not resting');
  }

  private order(op: Extract<Op, { kind: 'order' }>): void {
    const m = MARKETS[op.market];
    const u = USERS[op.user];
    const mark = this.marks.get(m.symbol)!;
    const price = mark
      .times(10_000 + op.offsetBp)
      .div(10_000)
      .decimalPlaces(m.pricePrecision, Money.ROUND_DOWN);
    const qty = new Money(op.lots).times(m.lotSize);
    const ref = op.type === 'LIMIT' ? price : mark;
    const orderId = `o${++this.seq}`;
    const result = this.risk((b) =>
      b.placeOrder(u, {
        orderId,
        clientOrderId: `c${op.cid}`,
        symbol: m.symbol,
        side: op.side,
        type: op.type,
        price: op.type === 'LIMIT' ? price : undefined,
        // A quote amount a little above the lots, so the conversion has something to floor.
        quoteOrderQty: op.byQuote ? qty.times(ref).plus('0.01') : undefined,
        quantity: op.byQuote ? undefined : qty,
        reduceOnly: op.reduceOnly,
      }),
    );
    if (!result.ok) {
      this.stats.rejected.set(result.reason, (this.stats.rejected.get(result.reason) ?? 0) + 1);
      return;
    }
    this.stats.accepted++;
    if (result.frozenMargin.gt(0)) expect(this.risk((b) => b.balances(u)).availableBalance.gte(0)).toBe(true);
    if (op.byQuote) expect(result.quantity.eq(qty)).toBe(true);

    let remaining = result.quantity;
    const book = this.resting.get(m.symbol)!;
    const crosses = (r: Resting) =>
      r.side !== op.side &&
      r.user !== u &&
      (op.type === 'MARKET' || (op.side === 'BUY' ? r.price.lte(price) : r.price.gte(price)));
    const better = (a: Resting, b: Resting) =>
      (op.side === 'BUY' ? a.price.comparedTo(b.price) : b.price.comparedTo(a.price)) || a.seq - b.seq;
    for (const r of [...book].filter(crosses).sort(better)) {
      if (remaining.isZero()) break;
      let takerCap = remaining;
      if (op.reduceOnly) takerCap = Money.min(remaining, this.opposite(u, m.symbol, op.side));
      if (takerCap.isZero()) break;
      let makerCap = r.remaining;
      if (r.reduceOnly) makerCap = Money.min(r.remaining, this.opposite(r.user, m.symbol, r.side));
      if (makerCap.isZero()) {
        this.cancel(r); // a reduceOnly order with nothing left to reduce
        continue;
      }
      const q = Money.min(takerCap, makerCap);
      this.trade(
        m.symbol,
        { user: r.user, orderId: r.orderId, side: r.side },
        { user: u, orderId },
        q,
        r.price,
      );
      remaining = remaining.minus(q);
      r.remaining = r.remaining.minus(q);
      if (r.remaining.isZero()) book.splice(book.indexOf(r), 1);
    }
    if (remaining.isZero()) return;
    if (op.type === 'MARKET' || op.reduceOnly)
      expect(this.risk((b) => b.releaseOrder(u, orderId))).toBeDefined();
    else book.push({ user: u, orderId, side: op.side, price, remaining, reduceOnly: false, seq: this.seq });
  }

  /** The book's invariants and its agreement with the engine (the primary book by default). */
  check(book: AccountBook = this.book): void {
    const ledger = book.ledger;
    const accounts = book.allAccounts();
    // Plain checks collected, one expect at the end: expect() per check would dominate the run time.
    const failures: string[] = [];
    const ok = (cond: boolean, what: string) => {
      if (!cond) failures.push(what);
    };
    // Conservation, from the accounts' own wallets, not only the ledger's.
    let wallets = ZERO;
    for (const a of accounts) {
      ok(ledger.balance(walletOf(a.user)).eq(a.walletBalance), `ledger wallet of ${a.user}`);
      wallets = wallets.plus(a.walletBalance);
    }
    const system = ledger.balance(FEE_ACCOUNT).plus(ledger.balance(INSURANCE_FUND));
    ok(wallets.plus(system).plus(ledger.balance(CLEARING_ACCOUNT)).eq(ledger.totalDeposits), 'conservation');
    ok(ledger.total().eq(ledger.totalDeposits), 'ledger total');
    ok(ledger.balance(FEE_ACCOUNT).gte(0), 'fee account >= 0');

    // Clearing holds exactly the open positions' unrealized PnL: the money sum plus it is the deposits.
    let upnl = ZERO;
    let cost = ZERO;
    for (const a of accounts)
      for (const p of a.positions()) {
        upnl = upnl.plus(unrealizedPnl(p, this.marks.get(p.symbol)!));
        cost = cost.plus(signedCost(p));
      }
    ok(ledger.balance(CLEARING_ACCOUNT).eq(upnl), 'clearing = unrealized PnL');
    ok(ledger.balance(CLEARING_ACCOUNT).eq(cost.negated()), 'clearing = -signed cost');
    ok(wallets.plus(system).plus(upnl).eq(ledger.totalDeposits), 'equity conservation');

    for (const m of MARKETS) {
      let long = ZERO;
      let short = ZERO;
      for (const a of accounts) {
        const p = a.position(m.symbol);
        const size = p?.size ?? ZERO;
        ok(size.eq(this.size(a.user, m.symbol)), `${a.user} ${m.symbol}: risk size = engine size`);
        if (size.gt(0)) long = long.plus(size);
        else short = short.minus(size);
      }
      ok(long.eq(short), `${m.symbol}: long OI = short OI`);
    }

    for (const a of accounts) {
      const engine = [...this.resting.values()].flat().filter((r) => r.user === a.user);
      const risk = a.openOrders();
      ok(
        risk.length === engine.length &&
          engine.every((r) => a.order(r.orderId)?.remaining.eq(r.remaining) === true),
        `${a.user}: risk orders = engine orders`,
      );
      for (const o of risk) ok(o.frozen.gte(0), `${o.orderId}: frozen >= 0`);
      if (risk.length === 0) ok(a.frozenMargin().isZero(), `${a.user}: no order, no frozen margin`);
      // The account's running totals equal the sums over its open orders, exactly.
      const frozen = risk.reduce((sum, o) => sum.plus(o.frozen), ZERO);
      ok(
        a.frozenMargin().eq(frozen),
        `${a.user}: frozen total ${a.frozenMargin().toFixed()} = Σ ${frozen.toFixed()}`,
      );
      // Pre-trade's shortcut to the available balance agrees with the full balances, in every mode.
      const available = a.availableBalance(book.markPrices);
      const full = book.balances(a.user).availableBalance;
      ok(available.eq(full), `${a.user}: available ${available.toFixed()} = balances' ${full.toFixed()}`);
      for (const m of MARKETS)
        for (const side of ['BUY', 'SELL'] as const) {
          const open = risk.filter((o) => o.symbol === m.symbol && o.side === side);
          const sum = open.reduce((acc, o) => acc.plus(o.remaining), ZERO);
          ok(
            a.openQuantity(m.symbol, side).eq(sum),
            `${a.user} ${side} ${m.symbol}: open quantity = Σ remaining`,
          );
        }
    }
    expect(failures).toEqual([]);
  }

  /** Cancels every resting order, then closes every position against the other side at the mark. */
  wind(): void {
    for (const r of [...this.resting.values()].flat()) this.cancel(r);
    for (const m of MARKETS) {
      const sized = () => this.book.allAccounts().map((a) => [a.user, this.size(a.user, m.symbol)] as const);
      for (;;) {
        const long = sized().find(([, s]) => s.gt(0));
        const short = sized().find(([, s]) => s.lt(0));
        if (!long || !short) break;
        const q = Money.min(long[1], short[1].abs());
        this.trade(
          m.symbol,
          { user: long[0], side: 'SELL' },
          { user: short[0] },
          q,
          this.marks.get(m.symbol)!,
        );
      }
    }
  }
}
