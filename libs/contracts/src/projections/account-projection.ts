import { accountStateSchema } from '@perp/domain';
import { z } from 'zod';
import { algoOrderRecord } from '../messages/algo-orders';
import { orderRecord, type OrderRecord } from '../messages/events';
import { address, decimal, ms } from '../messages/primitives';

/**
 * Live state the risk shards write to the hot store for readers (gateway replicas): written before
 * the shard answers a command, so a caller reads its own writes.
 */
export const HOT_KEYS = {
  /** One user's account: domain AccountState + open order records. */
  account: (user: string) => `account:${user}`,
  /** An order that left the book (kept a day; history is in Postgres). */
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

/** Closed orders stay in the hot store this long for GET /fapi/v1/order right after they close. */
export const CLOSED_ORDER_TTL_MS = 24 * 3600_000;

export const accountProjection = z.object({
  v: z.literal(1),
  user: address,
  /** Time of the last change. */
  time: ms,
  /**
   * The domain's AccountState (Account.toState), typed and checked field by field; Account.fromState
   * rebuilds it and adds the consistency checks a shape cannot express (unique keys, order index).
   */
  state: accountStateSchema,
  /** Open orders (NEW, PARTIALLY_FILLED), oldest first. */
  orders: z.array(orderRecord),
});
export type AccountProjection = z.infer<typeof accountProjection>;

export const priceProjection = z.object({ markPrice: decimal, indexPrice: decimal, time: z.string() });
export type PriceProjection = z.infer<typeof priceProjection>;

export function parseAccountProjection(json: string): AccountProjection {
  return accountProjection.parse(JSON.parse(json));
}

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
