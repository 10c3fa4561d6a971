import { z } from 'zod';
import { outcomeError } from '../outcomes/reasons';
import { newAlgoOrder } from './algo-orders';

import { engineEvent, fundingEvent } from './events';
import { address, decimal, envelope, ms, side, symbol } from './primitives';

export const orderType = z.enum([
  'LIMIT',
  'MARKET',
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
]);
export const timeInForce = z.enum(['GTC', 'IOC', 'FOK', 'GTX']);
export const stpMode = z.enum(['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'NONE']);

const newOrder = {
  orderId: z.string().uuid(),
  clientOrderId: z.string().min(1).max(36),
  user: address,
  symbol,
  side,
  orderType,
  timeInForce,
  quantity: decimal.optional(),
  quoteOrderQty: decimal.optional(),
  price: decimal.optional(),
  stopPrice: decimal.optional(),
  reduceOnly: z.boolean(),
  workingType: z.enum(['CONTRACT_PRICE', 'MARK_PRICE']),
  priceProtect: z.boolean(),
  selfTradePreventionMode: stpMode,
};

/** An open order of a user: by orderId, else by clientOrderId. */
const orderRef = {
  user: address,
  symbol,
  orderId: z.string().max(64).optional(),
  clientOrderId: z.string().max(36).optional(),
};

/**
 * Where a command forwarded by risk came from and whom to answer: the engine dedupes by `origin`
 * (a high-water mark per risk partition) and ends the command's events with `command.result`.
 */
const forwarded = {
  origin: z
    .object({
      partition: z.number().int().nonnegative(),
      offset: z.string().regex(/^\d+$/),
      /** Orders several commands forwarded from one risk input (triggers fired by one mark price). */
      index: z.number().int().nonnegative().optional(),
    })
    .optional(),
  replyTo: z.object({ topic: z.string(), key: z.string(), correlationId: z.string() }).optional(),
};

/** Gateway -> risk, keyed by user: everything that needs the account's state first. */
export const riskCommand = z.discriminatedUnion('type', [
  z.object({ ...envelope, type: z.literal('order.new'), ...newOrder }),
  z.object({
    ...envelope,
    type: z.literal('leverage.set'),
    user: address,
    symbol,
    leverage: z.number().int(),
  }),
  z.object({
    ...envelope,
    type: z.literal('deposit'),
    user: address,
    asset: z.literal('USDT'),
    amount: decimal,
    actor: z.string(),
  }),
  z.object({
    ...envelope,
    type: z.literal('vip.set'),
    user: address,
    tier: z.number().int().min(0),
    actor: z.string(),
  }),
  z.object({ ...envelope, type: z.literal('order.cancel'), ...orderRef }),
  z.object({ ...envelope, type: z.literal('order.cancelAll'), user: address, symbol }),
  z.object({ ...envelope, type: z.literal('algo.new'), ...newAlgoOrder }),
  /** An algo order by algoId, else clientAlgoId. */
  z.object({
    ...envelope,
    type: z.literal('algo.cancel'),
    user: address,
    algoId: z.number().int().nonnegative().optional(),
    clientAlgoId: z.string().max(36).optional(),
  }),
  /** Every open algo order of the user on a symbol. */
  z.object({ ...envelope, type: z.literal('algo.cancelAll'), user: address, symbol }),
  z.object({
    ...envelope,
    type: z.literal('order.amend'),
    ...orderRef,
    side,
    price: decimal,
    quantity: decimal,
  }),
  z.object({ ...envelope, type: z.literal('margin.mode'), user: address, mode: z.string().max(32) }),
  z.object({
    ...envelope,
    type: z.literal('collateral'),
    user: address,
    symbol,
    action: z.enum(['add', 'remove']),
    amount: decimal,
  }),
  /** Prices, copied into every risk partition so each shard sees them in its command order. */
  z.object({
    ...envelope,
    type: z.literal('price.mark'),
    symbol,
    markPrice: decimal,
    indexPrice: decimal,
    /** The last trade price with this mark (price protection compares them); absent from older copies. */
    lastPrice: decimal.optional(),
  }),
  /** The keeper's clock, copied into every risk partition like prices: GTD expiry reads its time. */
  z.object({ ...envelope, type: z.literal('clock.tick') }),
  /**
   * A market's status as the engine applied it (an add, pause, resume or delisting), copied by the
   * engine into every risk partition before it answers: a shard takes them in its own input order,
   * so a replay decides as the first run did. `source` is the engine command's place; the shard
   * drops a copy at or below the last it applied for the symbol (an engine replay). `market` is the
   * definition (as on the markets topic): a market listed at run time exists for a partition from
   * its first copy on, whether or not the process's own market list has read it yet.
   */
  z.object({
    ...envelope,
    type: z.literal('market.state'),
    symbol,
    status: z.enum(['TRADING', 'HALT', 'CLOSE']),
    source: z.object({ partition: z.number().int().nonnegative(), offset: z.string().regex(/^\d+$/) }),
    market: z.record(z.string(), z.unknown()).optional(),
  }),
  /**
   * A market's funding round (the funding log's `funding.settle`), copied into every risk partition
   * under the round's own id (symbol and funding time): every position of the partition's users pays
   * or receives once; the shard drops a round at or before the last it applied for the symbol.
   */
  fundingEvent,
  /**
   * An engine event concerning a user of this partition, copied by the engine in the event's turn.
   * `source` is the place of the engine command that produced it (engine-commands partition and
   * offset; index = event index x 2 + copy, unique per copy): the shard keeps a high-water mark per
   * engine partition and drops copies at or below it (engine replays). A trade is copied to
   * each of its two users, and `liquidity` says which side of it this copy settles.
   */
  z.object({
    ...envelope,
    type: z.literal('engine.event'),
    source: z.object({
      partition: z.number().int().nonnegative(),
      offset: z.string().regex(/^\d+$/),
      index: z.number().int().nonnegative(),
    }),
    /** On trade copies: MAKER settles the trade's maker side, TAKER its taker side. */
    liquidity: z.enum(['MAKER', 'TAKER']).optional(),
    event: engineEvent,
  }),
]);
export type RiskCommand = z.infer<typeof riskCommand>;

/** Risk or gateway -> engine, keyed by symbol: what the book applies in order. */
export const engineCommand = z.discriminatedUnion('type', [
  z.object({
    ...envelope,
    type: z.literal('order.place'),
    ...newOrder,
    quantity: decimal,
    frozenMargin: decimal,
    ...forwarded,
  }),
  z.object({
    ...envelope,
    type: z.literal('order.cancel'),
    user: address,
    symbol,
    orderId: z.string().optional(),
    clientOrderId: z.string().optional(),
    ...forwarded,
  }),
  z.object({ ...envelope, type: z.literal('order.cancelAll'), user: address, symbol, ...forwarded }),
  z.object({
    ...envelope,
    type: z.literal('order.amend'),
    user: address,
    symbol,
    orderId: z.string(),
    price: decimal,
    quantity: decimal,
    ...forwarded,
  }),
  /**
   * Risk -> engine: close (part of) a liquidated position. The engine matches it as an IOC taker
   * against the book at `limitPrice` or better (the bankruptcy price, or beyond it as far as the
   * risk shard's insurance fund can pay the difference), then closes whatever is left against
   * opposite positions in ADL ranking order at `bankruptcyPrice` (trades of kind ADL), and ends with
   * `liquidation.done` for the liquidated user's shard. `liquidationId` is deterministic (the risk
   * input's place) and is the order id of every trade of the liquidation.
   */
  z.object({
    ...envelope,
    type: z.literal('liquidation.place'),
    liquidationId: z.string().uuid(),
    user: address,
    symbol,
    /** The closing side: SELL closes a long. */
    side,
    quantity: decimal,
    bankruptcyPrice: decimal,
    limitPrice: decimal,
    markPrice: decimal,
    /** Isolated (native) positions liquidate on their own collateral; cross on the whole account. */
    marginMode: z.enum(['CROSS', 'ISOLATED']),
    ...forwarded,
  }),
  /**
   * Risk -> engine, one per symbol and risk partition on each mark: the ADL ranking score (profit
   * ratio x effective leverage, Binance's order; negative for a losing position) of every open
   * position of that partition's users on the symbol. It replaces the partition's previous list;
   * the engine ranks the opposite side of a liquidation by score (highest first), then user.
   */
  z.object({
    ...envelope,
    type: z.literal('adl.scores'),
    symbol,
    partition: z.number().int().nonnegative(),
    scores: z.array(z.object({ user: address, score: decimal })),
    ...forwarded,
  }),
  z.object({
    ...envelope,
    type: z.literal('market.status'),
    symbol,
    status: z.enum(['TRADING', 'HALT', 'CLOSE']),
    actor: z.string(),
  }),
  z.object({
    ...envelope,
    type: z.literal('market.add'),
    symbol,
    market: z.record(z.string(), z.unknown()),
    actor: z.string(),
  }),
]);
export type EngineCommand = z.infer<typeof engineCommand>;

/**
 * Replies to a request (keyed by the requester's reply key). A refusal carries a neutral reason
 * (`OUTCOME_REASONS`); each API surface maps it to its own code.
 */
export const reply = z.object({
  correlationId: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: outcomeError.optional(),
  time: ms,
});
export type Reply = z.infer<typeof reply>;
