import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { HOT_KEYS, type OrderRecord, readAccountProjection, parseOrderRecord } from '@perp/contracts';
import {
  Account,
  type Chain,
  type FeeRates,
  feeRates,
  isValidVipTier,
  type MarketLookup,
  MarketRegistry,
  type MarkPrices,
  type Money,
  parseDecimal,
} from '@perp/domain';
import { CHAIN } from '@perp/runtime';

/**
 * One user's live account as the risk shard last wrote it: the domain Account (rebuilt from its
 * state), the open order records, and the mark prices the views need.
 */
export interface AccountSnapshot {
  address: string;
  account: Account;
  /** Open orders (NEW, PARTIALLY_FILLED), oldest first. */
  orders: OrderRecord[];
  /** Time of the account's last change; 0 for a user the shards have never written. */
  time: number;
  /** Mark prices read from the hot store (symbols without one are absent). */
  marks: Map<string, Money>;
}

/** Reads accounts, prices and closed orders from the hot store (never from a shard). */
@Injectable()
export class AccountReader {
  constructor(
    @Inject(HOT_STORE) private readonly hot: HotStore,
    @Inject(CHAIN) private readonly chain: Chain,
    private readonly markets: MarketRegistry,
  ) {}

  /** The market lookup the domain's margin maths needs (live list: brackets can change). */
  readonly marketLookup: MarketLookup = (symbol) => this.markets.find(symbol);

  /** The user's account and open orders, without prices. A user without a projection has an empty account. */
  async load(address: string): Promise<AccountSnapshot> {
    const projection = await readAccountProjection(this.hot, address);
    if (projection === undefined)
      return { address, account: new Account(address), orders: [], time: 0, marks: new Map() };
    return {
      address,
      account: Account.fromState(projection.state),
      orders: projection.orders,
      time: projection.time,
      marks: new Map(),
    };
  }

  /**
   * The user's account with the mark prices of every symbol it holds a position or an order in,
   * plus those of `symbols`.
   */
  async snapshot(address: string, symbols: readonly string[] = []): Promise<AccountSnapshot> {
    const snapshot = await this.load(address);
    const wanted = new Set(symbols);
    for (const p of snapshot.account.positions()) wanted.add(p.symbol);
    for (const o of snapshot.account.openOrders()) wanted.add(o.symbol);
    return { ...snapshot, marks: await this.markPrices([...wanted]) };
  }

  async markPrices(symbols: readonly string[]): Promise<Map<string, Money>> {
    const out = new Map<string, Money>();
    const rows = await Promise.all(symbols.map((s) => this.hot.hgetall(HOT_KEYS.price(s))));
    rows.forEach((row, i) => {
      const mark = parseDecimal(row.markPrice);
      if (mark?.gt(0)) out.set(symbols[i], mark);
    });
    return out;
  }

  /** An order that left the book, if its record is still in the hot store and is the caller's. */
  async closedOrder(orderId: string, address: string): Promise<OrderRecord | undefined> {
    const json = await this.hot.get(HOT_KEYS.closedOrder(orderId));
    if (json === undefined) return undefined;
    let record: OrderRecord;
    try {
      record = parseOrderRecord(json);
    } catch {
      return undefined; // an unreadable cache entry: Postgres has the order
    }
    return record.user === address ? record : undefined;
  }

  /** The account's live VIP tier rates (tier 0 if the chain no longer defines its tier). */
  feeRates(account: Account): FeeRates {
    const tier = isValidVipTier(this.chain.feeTiers, account.vipTier) ? account.vipTier : 0;
    return feeRates(this.chain.feeTiers, tier);
  }
}

export function marksOf(snapshot: AccountSnapshot): MarkPrices {
  return (symbol) => snapshot.marks.get(symbol);
}
