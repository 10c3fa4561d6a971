import { INSURANCE_FUND } from '../../account/ledger';
import {
  MARKETS,
  Simulation,
  USERS,
  type Op,
  type SimulationStats,
} from '../../account/__fixtures__/simulation';
import { Money } from '../../money/money';
import { isLiquidatable, marginStates, planLiquidation, type LiquidationPlan } from '../liquidation-risk';
import { lookup } from '../../account/__fixtures__/markets';

const markets = lookup(...MARKETS);
const ZERO = new Money(0);

export interface LiquidationStats {
  steps: number;
  partialSteps: number;
  bookFills: number;
  adlFills: number;
  payouts: number;
}

/**
 * The account simulation with a liquidation engine: after every operation, every margin state at
 * or under maintenance is liquidated step by step as the risk shard and the engine do it (cancel
 * the account's orders, an IOC at the insured limit against the resting book, reduce-only), the
 * remainder closed against opposite positions at the bankruptcy price (a stand-in for ADL: by
 * user, not by ranking). `violations` collects broken liquidation invariants.
 */
export class LiquidationSimulation extends Simulation {
  readonly violations: string[] = [];
  readonly liq: LiquidationStats = { steps: 0, partialSteps: 0, bookFills: 0, adlFills: 0, payouts: 0 };

  constructor(stats?: SimulationStats) {
    super(stats);
  }

  override apply(op: Op): void {
    super.apply(op);
    this.liquidateAll();
  }

  liquidateAll(): void {
    for (let round = 0; round < 500; round++) {
      const next = this.nextLiquidation();
      if (!next) return;
      this.execute(next.user, next.plan);
    }
    this.violations.push('liquidations did not end within 500 steps');
  }

  private nextLiquidation(): { user: string; plan: LiquidationPlan } | undefined {
    const insurance = this.book.ledger.balance(INSURANCE_FUND);
    for (const user of USERS) {
      const account = this.book.find(user);
      if (!account) continue;
      for (const state of marginStates(account, this.book.markPrices, markets)) {
        if (!isLiquidatable(state)) continue;
        const plan = planLiquidation(account, state, this.book.markPrices, markets, insurance);
        if (plan) return { user, plan };
      }
    }
    return undefined;
  }

  private execute(user: string, plan: LiquidationPlan): void {
    this.liq.steps++;
    const position = this.book.account(user).position(plan.symbol)!;
    if (plan.quantity.lt(position.size.abs())) this.liq.partialSteps++;
    for (const r of [...this.resting.values()].flat())
      if (r.user === user && (plan.marginMode === 'CROSS' || this.symbolOf(r) === plan.symbol))
        this.cancel(r);
    let remaining = Money.min(plan.quantity, this.opposite(user, plan.symbol, plan.side));
    const book = this.resting.get(plan.symbol)!;
    const crosses = (r: (typeof book)[number]) =>
      r.side !== plan.side &&
      (plan.side === 'SELL' ? r.price.gte(plan.limitPrice) : r.price.lte(plan.limitPrice));
    const better = (a: (typeof book)[number], b: (typeof book)[number]) =>
      (plan.side === 'BUY' ? a.price.comparedTo(b.price) : b.price.comparedTo(a.price)) || a.seq - b.seq;
    const id = `liq${this.liq.steps}`;
    for (const r of [...book].filter(crosses).sort(better)) {
      if (remaining.isZero()) break;
      const makerCap = r.reduceOnly
        ? Money.min(r.remaining, this.opposite(r.user, plan.symbol, r.side))
        : r.remaining;
      if (makerCap.isZero()) {
        this.cancel(r);
        continue;
      }
      const q = Money.min(remaining, makerCap);
      this.trade(
        plan.symbol,
        { user: r.user, orderId: r.orderId, side: r.side },
        { user, orderId: id },
        q,
        r.price,
        'LIQUIDATION',
      );
      this.liq.bookFills++;
      remaining = remaining.minus(q);
      r.remaining = r.remaining.minus(q);
      if (r.remaining.isZero()) book.splice(book.indexOf(r), 1);
    }
    // ADL stand-in: the rest against opposite positions at the bankruptcy price.
    const makerSide = plan.side === 'SELL' ? 'BUY' : 'SELL';
    for (const other of USERS) {
      if (remaining.isZero()) break;
      if (other === user) continue;
      const q = Money.min(remaining, this.opposite(other, plan.symbol, makerSide));
      if (q.isZero()) continue;
      this.trade(
        plan.symbol,
        { user: other, side: makerSide },
        { user, orderId: id },
        q,
        plan.bankruptcyPrice,
        'ADL',
      );
      this.liq.adlFills++;
      remaining = remaining.minus(q);
    }
    this.checkLiquidated(user);
  }

  /** After a step: nothing left below zero (the fund covered it), a flat account's wallet >= 0. */
  private checkLiquidated(user: string): void {
    const account = this.book.account(user);
    const b = account.balances(this.book.markPrices, markets);
    if (account.positions().length === 0 && b.walletBalance.lt(0))
      this.violations.push(`${user}: flat with wallet ${b.walletBalance.toFixed()}`);
    if (account.marginMode !== 'ISOLATED' && b.marginBalance.minus(b.isolatedMargin).lt(ZERO))
      this.violations.push(`${user}: cross margin balance ${b.marginBalance.toFixed()} after a step`);
  }
}
