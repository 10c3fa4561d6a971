import type { AlgoOrderRecord, RiskCommand } from '@perp/contracts';
import { isAlgoOpen, Money, OrderCounter, type TrailingStop, type TriggerOrderType } from '@perp/domain';

/** The trigger order an algo order fires as (trailing stops as a STOP_MARKET). */
export type DerivedOrderCommand = Extract<RiskCommand, { type: 'order.new' }> & {
  orderType: TriggerOrderType;
};

/** An algo order risk still acts on (NEW, or TRIGGERED until its order leaves the book). */
export interface LiveAlgo {
  record: AlgoOrderRecord;
  /** The order it fires as (closePosition: sized at firing). */
  command: DerivedOrderCommand;
  /** Trailing stops: the tracking state. */
  trailing?: TrailingStop;
}

type SerializedTrailing = {
  side: 'BUY' | 'SELL';
  activatePrice: string;
  callbackRate: string;
  extreme?: string;
};
export type SerializedAlgo = Omit<LiveAlgo, 'trailing'> & { trailing?: SerializedTrailing };

/** Ended algo orders kept per user for the history queries. */
const ENDED_PER_USER = 200;

/**
 * The algo orders of one risk partition: live ones by algoId (with indexes by user, by the order
 * they fired as, trailing stops per symbol, GTD deadlines) and the last ended ones per user.
 * NEW ones are counted per user and symbol so the market's limits are checked in O(1).
 */
export class AlgoBook {
  private readonly live = new Map<number, LiveAlgo>();
  private readonly liveByUser = new Map<string, Set<number>>();
  private readonly byOrderId = new Map<string, number>();
  private readonly trailingBySymbol = new Map<string, Set<number>>();
  private readonly gtd = new Map<number, number>();
  private readonly ended = new Map<string, AlgoOrderRecord[]>();
  /** NEW algo orders per user and symbol. */
  readonly waiting = new OrderCounter();

  get(algoId: number): LiveAlgo | undefined {
    return this.live.get(algoId);
  }

  /** The user's algo order by id or client id: live first, then the ended ones (newest first). */
  find(user: string, algoId?: number, clientAlgoId?: string): AlgoOrderRecord | undefined {
    const match = (r: AlgoOrderRecord) =>
      r.user === user && (algoId !== undefined ? r.algoId === algoId : r.clientAlgoId === clientAlgoId);
    for (const r of this.liveOf(user)) if (match(r)) return r;
    const ended = this.ended.get(user) ?? [];
    for (let i = ended.length - 1; i >= 0; i--) if (match(ended[i]!)) return ended[i];
    return undefined;
  }

  /** The live algo an order was fired from. */
  byOrder(orderId: string): LiveAlgo | undefined {
    const id = this.byOrderId.get(orderId);
    return id === undefined ? undefined : this.live.get(id);
  }

  openOf(user: string, symbol?: string): AlgoOrderRecord[] {
    return this.liveOf(user).filter(
      (r) => isAlgoOpen(r.algoStatus) && (symbol === undefined || r.symbol === symbol),
    );
  }

  /** The user's live algo orders (NEW and TRIGGERED), by algoId. */
  /** Users with a live or a recently ended algo order. */
  users(): string[] {
    return [...new Set([...this.liveByUser.keys(), ...this.ended.keys()])];
  }

  liveOf(user: string): AlgoOrderRecord[] {
    return [...(this.liveByUser.get(user) ?? [])]
      .map((id) => this.live.get(id)!.record)
      .sort((a, b) => a.algoId - b.algoId);
  }

  endedOf(user: string): AlgoOrderRecord[] {
    return this.ended.get(user) ?? [];
  }

  trailingOf(symbol: string): LiveAlgo[] {
    return [...(this.trailingBySymbol.get(symbol) ?? [])].map((id) => this.live.get(id)!);
  }

  /** NEW algo orders whose goodTillDate is at or before `time`, in algoId order. */
  expiringAt(time: number): LiveAlgo[] {
    const out: LiveAlgo[] = [];
    for (const [id, until] of this.gtd) if (time >= until) out.push(this.live.get(id)!);
    return out.sort((a, b) => a.record.algoId - b.record.algoId);
  }

  /** Adds a NEW algo order, or replaces a live one's record and state. */
  put(algo: LiveAlgo): void {
    const { record: r } = algo;
    const before = this.live.get(r.algoId);
    if (before && isAlgoOpen(before.record.algoStatus)) this.waiting.remove(key(r));
    this.live.set(r.algoId, algo);
    let mine = this.liveByUser.get(r.user);
    if (!mine) this.liveByUser.set(r.user, (mine = new Set()));
    mine.add(r.algoId);
    if (isAlgoOpen(r.algoStatus)) {
      this.waiting.add(key(r));
      if (algo.trailing) this.trailingSet(r.symbol).add(r.algoId);
      if (r.timeInForce === 'GTD') this.gtd.set(r.algoId, r.goodTillDate);
    } else {
      this.trailingBySymbol.get(r.symbol)?.delete(r.algoId);
      this.gtd.delete(r.algoId);
    }
    if (r.actualOrderId) this.byOrderId.set(r.actualOrderId, r.algoId);
  }

  /** Ends a live algo order with its final record (kept for the history queries). */
  end(record: AlgoOrderRecord): void {
    const before = this.live.get(record.algoId);
    if (before) {
      if (isAlgoOpen(before.record.algoStatus)) this.waiting.remove(key(record));
      this.live.delete(record.algoId);
      const mine = this.liveByUser.get(record.user);
      mine?.delete(record.algoId);
      if (mine?.size === 0) this.liveByUser.delete(record.user);
      this.trailingBySymbol.get(record.symbol)?.delete(record.algoId);
      this.gtd.delete(record.algoId);
      if (before.record.actualOrderId) this.byOrderId.delete(before.record.actualOrderId);
    }
    let mine = this.ended.get(record.user);
    if (!mine) this.ended.set(record.user, (mine = []));
    mine.push(record);
    if (mine.length > ENDED_PER_USER) mine.shift();
  }

  toState(): { live: SerializedAlgo[]; ended: AlgoOrderRecord[] } {
    return {
      live: [...this.live.values()].map(({ trailing, ...a }) => ({
        ...a,
        ...(trailing
          ? {
              trailing: {
                side: trailing.side,
                activatePrice: trailing.activatePrice.toFixed(),
                callbackRate: trailing.callbackRate.toFixed(),
                ...(trailing.extreme ? { extreme: trailing.extreme.toFixed() } : {}),
              },
            }
          : {}),
      })),
      ended: [...this.ended.values()].flat(),
    };
  }

  static fromState(s: { live: SerializedAlgo[]; ended: AlgoOrderRecord[] } | undefined): AlgoBook {
    const b = new AlgoBook();
    for (const r of s?.ended ?? []) b.end(r);
    for (const { trailing: t, ...a } of s?.live ?? [])
      b.put({
        ...a,
        ...(t
          ? {
              trailing: {
                side: t.side,
                activatePrice: new Money(t.activatePrice),
                callbackRate: new Money(t.callbackRate),
                ...(t.extreme ? { extreme: new Money(t.extreme) } : {}),
              },
            }
          : {}),
      });
    return b;
  }

  private trailingSet(symbol: string): Set<number> {
    let s = this.trailingBySymbol.get(symbol);
    if (!s) this.trailingBySymbol.set(symbol, (s = new Set()));
    return s;
  }
}

function key(r: AlgoOrderRecord): string {
  return OrderCounter.key(r.user, r.symbol);
}
