// Why this module is long: the risk shard and engine steps it mirrors read best side by side.
import { AccountBook } from '../../account/account-book';
import { INSURANCE_FUND } from '../../account/ledger';
import type { Side } from '../../account/order';
import { ZERO } from '../../account/rounding';
import { BookTotals, solvency } from '../../account/solvency';
import { lookup } from '../../account/__fixtures__/markets';
import {
  applyAccountOp,
  BOOK_OPTIONS,
  MARKETS,
  movedMark,
  START_MARK,
  USERS,
  type Op,
} from '../../account/__fixtures__/simulation';
import { rankForAdl, deleveragePlan, type AdlPosition } from '../../adl/adl-ranking';
import { positionAdlScore } from '../../adl/adl-score';
import { fundingId } from '../../funding/funding-clock';
import { fundingIntervalMs, nextFundingTime } from '../../funding/funding-times';
import type { Market } from '../../markets/market';
import { Money } from '../../money/money';
import { OrderBook } from '../../order-book/order-book';
import { BookOrderType, BookSide, BookStpMode, BookTimeInForce } from '../../order-book/types';
import type { ForcedTradeKind } from '../liquidation-charges';
import { isLiquidatable, marginStates, planLiquidation, type LiquidationPlan } from '../liquidation-risk';

const markets = lookup(...MARKETS);
const PARTITIONS = 2;
const SIDES: Side[] = ['BUY', 'SELL'];

export interface LiquidationStats {
  steps: number;
  partialSteps: number;
  /** Steps of an isolated position (the others are cross accounts). */
  isolatedSteps: number;
  bookFills: number;
  adlFills: number;
  fundingRounds: number;
  /** Bankrupt losses the insurance fund paid back. */
  payouts: number;
  /** Liquidation and ADL fills whose two sides settle in different partitions. */
  crossPartitionFills: number;
}

export function newLiquidationStats(): LiquidationStats {
  return {
    steps: 0,
    partialSteps: 0,
    isolatedSteps: 0,
    bookFills: 0,
    adlFills: 0,
    fundingRounds: 0,
    payouts: 0,
    crossPartitionFills: 0,
  };
}

/**
 * A small exchange for the liquidation property spec, made of the real parts: users spread over
 * two risk partitions (one AccountBook each, with its own insurance share, as the risk shards
 * hold them), one real OrderBook per symbol (integer ticks and lots, its own positions), funding
 * rounds at the markets' funding times, and after every operation the liquidation cascade the risk
 * shard and the engine run: margin states, trigger and plan of `liquidation-risk`, the account's
 * orders canceled, an IOC reduce-only at the insured limit against the book, and the remainder
 * auto-deleveraged at the bankruptcy price in ADL order (scores as risk computes them, ranking and
 * plan of `../adl`, `OrderBook.deleverage`). `check()` is solvency over both partitions at the
 * common mark, long OI = short OI, risk = engine; `violations` collects broken liquidation outcomes.
 */
export class LiquidationSimulation {
  readonly partitions = Array.from({ length: PARTITIONS }, () => new AccountBook(BOOK_OPTIONS));
  private readonly totals = this.partitions.map((p) => BookTotals.of(p));
  readonly books = new Map<string, OrderBook>(MARKETS.map((m) => [m.symbol, new OrderBook()]));
  readonly marks = new Map<string, Money>();
  readonly violations: string[] = [];
  readonly liq: LiquidationStats = newLiquidationStats();
  /** Engine order id -> the risk order it mirrors (liquidation and ADL ids have none). */
  private readonly orders = new Map<number, { user: string; orderId: string }>();
  private seq = 0;
  private time = 0;

  constructor() {
    for (const m of MARKETS) this.setMark(m.symbol, new Money(START_MARK[m.symbol]));
  }

  partitionOf(user: string): AccountBook {
    return this.partitions[USERS.indexOf(user) % PARTITIONS];
  }

  apply(op: Op): void {
    this.applyOne(op);
    this.liquidateAll();
  }

  private applyOne(op: Op): void {
    const user = 'user' in op ? USERS[op.user] : '';
    const p = user ? this.partitionOf(user) : this.partitions[0];
    switch (op.kind) {
      case 'deposit':
        p.deposit(user, new Money(op.cents).div(100), `d${++this.seq}`);
        return;
      case 'order':
        return this.order(op);
      case 'cancel': {
        const mine = p.find(user)?.openOrders() ?? [];
        if (mine.length === 0) return;
        const o = mine[op.pick % mine.length];
        this.cancelOrder(user, o.orderId, o.symbol);
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
        return applyAccountOp(p, op);
      case 'funding':
        return this.funding(MARKETS[op.market], new Money(op.rate).shiftedBy(-8));
    }
  }

  /** The market's next funding round: the clock moves to its funding time, each partition settles its holders. */
  private funding(m: Market, rate: Money): void {
    this.time = nextFundingTime(this.time, fundingIntervalMs(m));
    const id = fundingId(m.symbol, this.time);
    const mark = this.marks.get(m.symbol)!;
    for (const p of this.partitions)
      for (const user of [...p.holders(m.symbol)]) p.applyFunding(user, m.symbol, rate, mark, this.time, id);
    this.liq.fundingRounds++;
  }

  private setMark(symbol: string, price: Money): void {
    this.marks.set(symbol, price);
    for (const p of this.partitions) p.setMarkPrice(symbol, price);
  }

  /** Pre-trade check in the user's partition, then the real book; its events settled by risk. */
  private order(op: Extract<Op, { kind: 'order' }>): void {
    const m = MARKETS[op.market];
    const user = USERS[op.user];
    const mark = this.marks.get(m.symbol)!;
    const ticks = mark
      .times(10_000 + op.offsetBp)
      .div(10_000)
      .div(m.tickSize)
      .integerValue(Money.ROUND_FLOOR)
      .toNumber();
    if (ticks <= 0) return;
    const price = new Money(ticks).times(m.tickSize);
    const qty = new Money(op.lots).times(m.lotSize);
    const ref = op.type === 'LIMIT' ? price : mark;
    const orderId = `o${++this.seq}`;
    const r = this.partitionOf(user).placeOrder(user, {
      orderId,
      clientOrderId: `c${op.cid}`,
      symbol: m.symbol,
      side: op.side,
      type: op.type,
      price: op.type === 'LIMIT' ? price : undefined,
      quoteOrderQty: op.byQuote ? qty.times(ref).plus('0.01') : undefined,
      quantity: op.byQuote ? undefined : qty,
      reduceOnly: op.reduceOnly,
    });
    if (!r.ok) return;
    const id = this.seq;
    this.orders.set(id, { user, orderId });
    this.books.get(m.symbol)!.place({
      orderId: id,
      user: op.user,
      side: BookSide[op.side],
      type: BookOrderType[op.type],
      timeInForce: BookTimeInForce.GTC,
      price: ticks,
      quantity: r.quantity.div(m.lotSize).toNumber(),
      reduceOnly: op.reduceOnly,
    });
    this.settleEvents(m);
  }

  private cancelOrder(user: string, orderId: string, symbol: string): void {
    const id = [...this.orders].find(([, o]) => o.orderId === orderId)![0];
    this.books.get(symbol)!.cancel(USERS.indexOf(user), id);
    this.settleEvents(markets(symbol)!);
  }

  /**
   * The last book command's events, as risk settles them: both sides of each FILL in their own
   * partitions (a liquidation's taker forced; an ADL fill forced on both sides), an order that left
   * the book releases its margin, one the book shrank (reduce-only cap or trim) is re-margined.
   */
  private settleEvents(m: Market, kind?: ForcedTradeKind): void {
    const book = this.books.get(m.symbol)!;
    for (const e of book.events.toArray()) {
      if (e.kind === 'FILL') {
        const tradeId = `t${++this.seq}`;
        const qty = new Money(e.qty).times(m.lotSize);
        const price = new Money(e.price).times(m.tickSize);
        for (const [s, liquidity] of [
          [e.maker, 'MAKER'],
          [e.taker, 'TAKER'],
        ] as const) {
          const user = USERS[s.user];
          const order = this.orders.get(s.orderId);
          const fill = {
            user,
            orderId: order?.orderId,
            symbol: m.symbol,
            side: SIDES[s.side],
            qty,
            price,
            liquidity,
            closeQty: new Money(s.close).times(m.lotSize),
            tradeId,
            time: this.time,
          };
          const p = this.partitionOf(user);
          if (kind && (kind === 'ADL' || liquidity === 'TAKER')) {
            if (p.settleForcedFill(fill, kind, liquidity === 'TAKER').insurancePayout.gt(0))
              this.liq.payouts++;
          } else p.settleFill(fill);
          if (s.leaves === 0) this.orders.delete(s.orderId);
        }
        if (kind && this.partitionOf(USERS[e.maker.user]) !== this.partitionOf(USERS[e.taker.user]))
          this.liq.crossPartitionFills++;
        if (kind === 'LIQUIDATION') this.liq.bookFills++;
        if (kind === 'ADL') this.liq.adlFills++;
        continue;
      }
      if (e.kind === 'MARKET_STATE') continue;
      const order = this.orders.get(e.orderId);
      if (!order) continue;
      const account = this.partitionOf(order.user).account(order.user);
      if (e.kind === 'CANCELED' || e.kind === 'EXPIRED' || e.kind === 'REJECTED') {
        account.removeOrder(order.orderId);
        this.orders.delete(e.orderId);
      } else if ((e.kind === 'ACCEPTED' && e.capped) || e.kind === 'AMENDED') {
        // As risk's orderAmended: re-margined for the open quantity the engine kept.
        const held = account.removeOrder(order.orderId);
        if (!held) continue;
        const quantity = new Money(e.qty).times(m.lotSize);
        const r = this.partitionOf(order.user).placeOrder(order.user, {
          orderId: held.orderId,
          clientOrderId: held.clientOrderId,
          symbol: held.symbol,
          side: held.side,
          type: 'LIMIT',
          price: held.referencePrice,
          quantity,
          reduceOnly: held.reduceOnly,
        });
        if (!r.ok) account.addOrder({ ...held, quantity, remaining: quantity });
      }
    }
  }

  /** Liquidates every triggered margin state, step by step, until none is left. */
  liquidateAll(): void {
    for (let round = 0; round < 500; round++) {
      const next = this.nextLiquidation();
      if (!next) return;
      this.execute(next.user, next.plan);
      // A broken step would repeat: stop at the first failure, the spec reports it.
      if (this.check().length > 0 || this.violations.length > 0) return;
    }
    this.violations.push('liquidations did not end within 500 steps');
  }

  private nextLiquidation(): { user: string; plan: LiquidationPlan } | undefined {
    for (const user of USERS) {
      const p = this.partitionOf(user);
      const account = p.find(user);
      if (!account) continue;
      for (const state of marginStates(account, p.markPrices, markets)) {
        if (!isLiquidatable(state)) continue;
        const plan = planLiquidation(account, state, p.markPrices, markets, p.ledger.balance(INSURANCE_FUND));
        if (plan) return { user, plan };
      }
    }
    return undefined;
  }

  /** One step: cancel what holds margin, the IOC against the book, ADL for the rest (as the engine). */
  private execute(user: string, plan: LiquidationPlan): void {
    this.liq.steps++;
    if (plan.marginMode === 'ISOLATED') this.liq.isolatedSteps++;
    const p = this.partitionOf(user);
    const m = markets(plan.symbol)!;
    const book = this.books.get(plan.symbol)!;
    const u = USERS.indexOf(user);
    const before = p.account(user).position(plan.symbol)!.size.abs();
    if (plan.quantity.lt(before)) this.liq.partialSteps++;
    for (const o of p.account(user).openOrders())
      if (plan.marginMode === 'CROSS' || o.symbol === plan.symbol)
        this.cancelOrder(user, o.orderId, o.symbol);
    const requested = plan.quantity.div(m.lotSize).toNumber();
    const taker = ++this.seq;
    book.place({
      orderId: taker,
      user: u,
      side: BookSide[plan.side],
      type: BookOrderType.LIMIT,
      timeInForce: BookTimeInForce.IOC,
      price: plan.limitPrice.div(m.tickSize).toNumber(),
      quantity: requested,
      reduceOnly: true,
      stp: BookStpMode.NONE,
    });
    let filled = 0;
    for (const e of book.events.toArray()) if (e.kind === 'FILL') filled += e.qty;
    this.settleEvents(m, 'LIQUIDATION');
    const pos = book.position(u);
    const closable = plan.side === 'SELL' ? Math.max(pos, 0) : Math.max(-pos, 0);
    const want = Math.min(requested - filled, closable);
    if (want > 0) {
      const queue = this.adlQueue(plan.symbol, pos > 0 ? 'short' : 'long');
      const bankruptcy = plan.bankruptcyPrice.div(m.tickSize).toNumber();
      for (const step of deleveragePlan(queue, want)) {
        book.deleverage(taker, u, ++this.seq, USERS.indexOf(step.user), step.lots, bankruptcy);
        this.settleEvents(m, 'ADL');
      }
    }
    this.checkLiquidated(user, plan, before);
  }

  /** One side's ADL queue: positions from the engine's book, scores as each partition computes them. */
  private adlQueue(symbol: string, side: 'long' | 'short'): AdlPosition[] {
    const out: AdlPosition[] = [];
    for (const [id, lots] of this.books.get(symbol)!.positions()) {
      if (lots > 0 !== (side === 'long')) continue;
      const user = USERS[id];
      const p = this.partitionOf(user);
      const account = p.account(user);
      const view = account.positionViews(p.markPrices, markets).find((v) => v.symbol === symbol)!;
      const score = positionAdlScore(view, { walletBalance: account.walletBalance, isolatedMargin: ZERO });
      out.push({ user, lots: Math.abs(lots), score: score.toFixed() });
    }
    return rankForAdl(out);
  }

  /**
   * After a step: the planned quantity is closed (book and ADL together), and nothing is left below
   * zero (the fund covered it): a flat account's wallet, a cross account's margin balance.
   */
  private checkLiquidated(user: string, plan: LiquidationPlan, before: Money): void {
    const p = this.partitionOf(user);
    const account = p.account(user);
    const b = account.balances(p.markPrices, markets);
    const after = account.position(plan.symbol)?.size.abs() ?? ZERO;
    if (!after.eq(before.minus(Money.min(before, plan.quantity))))
      this.violations.push(
        `${user}: ${plan.symbol} ${before.toFixed()} -> ${after.toFixed()}, planned ${plan.quantity.toFixed()}`,
      );
    if (account.positions().length === 0 && b.walletBalance.lt(0))
      this.violations.push(`${user}: flat with wallet ${b.walletBalance.toFixed()}`);
    if (account.marginMode !== 'ISOLATED' && b.marginBalance.minus(b.isolatedMargin).lt(0))
      this.violations.push(`${user}: cross margin balance ${b.marginBalance.toFixed()} after a step`);
    if (account.marginMode === 'ISOLATED' && b.walletBalance.lt(0))
      this.violations.push(`${user}: isolated account's wallet ${b.walletBalance.toFixed()} after a step`);
  }

  /**
   * Solvency over both partitions at the common mark (exactly 0, nothing unsettled), long OI =
   * short OI per symbol in the engine and in risk, and risk's positions and orders = the engine's.
   */
  check(): string[] {
    const failures: string[] = [];
    const ok = (cond: boolean, what: string) => {
      if (!cond) failures.push(what);
    };
    const parts = this.partitions.map((p, i) => {
      this.totals[i].refresh(p, USERS);
      return this.totals[i].totals(p);
    });
    const report = solvency(parts, (s) => this.marks.get(s));
    ok(report.unsettled.length === 0, `unsettled ${report.unsettled.join()}`);
    ok(report.difference.isZero(), `solvency difference ${report.difference.toFixed()}`);
    for (const m of MARKETS) {
      const book = this.books.get(m.symbol)!;
      ok(book.longOi === book.shortOi, `${m.symbol}: engine long OI ${book.longOi} = short ${book.shortOi}`);
      let long = ZERO;
      let short = ZERO;
      for (const [i, user] of USERS.entries()) {
        const size = this.partitionOf(user).find(user)?.position(m.symbol)?.size ?? ZERO;
        ok(size.eq(new Money(book.position(i)).times(m.lotSize)), `${user} ${m.symbol}: risk = engine`);
        if (size.gt(0)) long = long.plus(size);
        else short = short.minus(size);
      }
      ok(long.eq(short), `${m.symbol}: long OI = short OI`);
      ok(long.eq(new Money(book.longOi).times(m.lotSize)), `${m.symbol}: risk OI = engine OI`);
    }
    for (const [i, user] of USERS.entries()) {
      const risk = this.partitionOf(user).find(user)?.openOrders() ?? [];
      const engine = MARKETS.flatMap((m) =>
        this.books
          .get(m.symbol)!
          .openOrders(i)
          .map((o) => ({ m, o })),
      );
      ok(
        risk.length === engine.length &&
          engine.every(
            ({ m, o }) =>
              risk
                .find((r) => r.orderId === this.orders.get(o.orderId)?.orderId)
                ?.remaining.eq(new Money(o.quantity).times(m.lotSize)) === true,
          ),
        `${user}: risk orders = engine orders`,
      );
    }
    this.violations.push(...failures);
    return failures;
  }
}
