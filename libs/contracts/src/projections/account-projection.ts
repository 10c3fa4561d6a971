import { type AccountState, accountStateSchema } from '@perp/domain';
import { z } from 'zod';
import { algoOrderRecord } from '../messages/algo-orders';
import { orderRecord, type OrderRecord } from '../messages/events';
import { address, decimal, ms } from '../messages/primitives';

/**
 * Live state the risk shards write to the hot store for readers (gateway replicas): written before
 * the shard answers a command, so a caller reads its own writes.
 */
export const HOT_KEYS = {
  /**
   * One user's account, a hash (`ACCOUNT_FIELDS`) so that a turn writes what changed: the account
   * without its open orders, and one field per open order. (Was a string at `account:{user}`.)
   */
  account: (user: string) => `acct:${user}`,
  /** An order that left the book (kept CLOSED_ORDER_TTL_MS; history is in Postgres). */
  closedOrder: (orderId: string) => `order:${orderId}`,
  /** One user's algo orders: the live ones and the recently ended (GET algo order queries). */
  algoOrders: (user: string) => `algo:${user}`,
  /**
   * Latest mark and index price of a symbol (hash, `markPriceFields`): written by market data's
   * prices projector (not a risk shard), which keeps it in Postgres too and writes it again when
   * the hot store lost it.
   */
  price: (symbol: string) => `price:${symbol}`,
} as const;

/** The `HOT_KEYS.price` hash of a `price.mark` event. */
export function markPriceFields(e: {
  markPrice: string;
  indexPrice: string;
  lastPrice: string;
  fundingRate: string;
  nextFundingTime: number;
  time: number;
}): Record<string, string> {
  return {
    markPrice: e.markPrice,
    indexPrice: e.indexPrice,
    lastPrice: e.lastPrice,
    fundingRate: e.fundingRate,
    nextFundingTime: String(e.nextFundingTime),
    time: String(e.time),
  };
}

/**
 * The history projector's consumer group and its name in `processed_offsets`: its mark per
 * account-event partition is what readers of history wait on (read-your-writes).
 */
export const HISTORY_CONSUMER = 'history-projector';

/**
 * Closed orders stay in the hot store this long, so that GET /fapi/v1/order right after one closes
 * needs neither the history projector's mark nor Postgres. Order history keeps every field of the
 * record, so a later read answers the same from there. Short, because every closed order is held
 * for it: at a day, the embedded exchange's heap (or Redis) grew by ~1 KB per order for 24 hours.
 */
export const CLOSED_ORDER_TTL_MS = 60_000;

/** A user's account as readers use it (assembled from its hash by `accountProjectionOf`). */
export interface AccountProjection {
  v: 1;
  user: string;
  /** Time of the last change. */
  time: number;
  /** The domain's AccountState (Account.toState); Account.fromState adds the consistency checks. */
  state: AccountState;
  /** Open orders (NEW, PARTIALLY_FILLED), oldest first. */
  orders: OrderRecord[];
}

/**
 * The fields of a `HOT_KEYS.account` hash: `account` (AccountHead: the projection without its open
 * orders) and `o:{orderId}` per open order (AccountOrderEntry: the domain's order, its record). A
 * turn sets the head and the orders that changed and deletes those gone, in one step.
 */
export const ACCOUNT_FIELDS = { head: 'account', order: 'o:' } as const;
export const accountOrderField = (orderId: string) => `${ACCOUNT_FIELDS.order}${orderId}`;

export const accountHead = z.object({
  v: z.literal(1),
  user: address,
  time: ms,
  state: accountStateSchema.omit({ orders: true, clientOrderIds: true }),
});
export type AccountHead = z.infer<typeof accountHead>;

/** One open order: the domain's (margin frozen, remaining) and the record readers show. */
export const accountOrderEntry = z.object({
  order: accountStateSchema.shape.orders.element.optional(),
  record: orderRecord.optional(),
});
export type AccountOrderEntry = z.infer<typeof accountOrderEntry>;

/** The hash of a projection (what a full write sets). */
export function accountHash(p: AccountProjection): Record<string, string> {
  const { orders, clientOrderIds: _ids, ...rest } = p.state;
  const head: AccountHead = { v: 1, user: p.user, time: p.time, state: rest };
  const entries = new Map<string, AccountOrderEntry>();
  for (const order of orders) entries.set(order.orderId, { order });
  for (const record of p.orders) entries.set(record.orderId, { ...entries.get(record.orderId), record });
  const hash: Record<string, string> = { [ACCOUNT_FIELDS.head]: JSON.stringify(head) };
  for (const [orderId, entry] of entries) hash[accountOrderField(orderId)] = JSON.stringify(entry);
  return hash;
}

/**
 * The projection in a `HOT_KEYS.account` hash as read (`hgetall`), checked field by field;
 * undefined when it holds no account. Orders come oldest first (time, then id), as written.
 */
export function accountProjectionOf(hash: Record<string, string>): AccountProjection | undefined {
  const raw = hash[ACCOUNT_FIELDS.head];
  if (raw === undefined) return undefined;
  const head = accountHead.parse(JSON.parse(raw));
  const entries: AccountOrderEntry[] = [];
  for (const field in hash)
    if (field.startsWith(ACCOUNT_FIELDS.order))
      entries.push(accountOrderEntry.parse(JSON.parse(hash[field]!)));
  const time = (e: AccountOrderEntry) => e.record?.time ?? 0;
  const id = (e: AccountOrderEntry) => e.record?.orderId ?? e.order?.orderId ?? '';
  entries.sort((a, b) => time(a) - time(b) || id(a).localeCompare(id(b)));
  const orders = entries.flatMap((e) => (e.order ? [e.order] : []));
  return {
    v: 1,
    user: head.user,
    time: head.time,
    state: { ...head.state, orders, clientOrderIds: orders.map((o) => [o.clientOrderId, o.orderId]) },
    orders: entries.flatMap((e) => (e.record ? [e.record] : [])),
  };
}

/** A user's projected account, undefined when none was written. */
export async function readAccountProjection(
  hot: { hgetall(key: string): Promise<Record<string, string>> },
  user: string,
): Promise<AccountProjection | undefined> {
  return accountProjectionOf(await hot.hgetall(HOT_KEYS.account(user)));
}

export const priceProjection = z.object({ markPrice: decimal, indexPrice: decimal, time: z.string() });
export type PriceProjection = z.infer<typeof priceProjection>;

export function parseOrderRecord(json: string): OrderRecord {
  return orderRecord.parse(JSON.parse(json));
}

/** What risk writes at HOT_KEYS.algoOrders: live algo orders (NEW, TRIGGERED) and the last ended ones, oldest first. */
export const algoOrdersProjection = z.object({
  v: z.literal(1),
  user: address,
  time: ms,
  live: z.array(algoOrderRecord),
  ended: z.array(algoOrderRecord),
});
export type AlgoOrdersProjection = z.infer<typeof algoOrdersProjection>;
