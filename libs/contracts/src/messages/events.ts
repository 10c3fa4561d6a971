import { z } from 'zod';
import { outcomeError, outcomeReason } from '../outcomes/reasons';
import { algoOrderRecord } from './algo-orders';
import { address, decimal, envelope, ms, side, symbol } from './primitives';

const order = {
  orderId: z.string(),
  clientOrderId: z.string(),
  user: address,
  symbol,
  seq: z.number().int().nonnegative(),
};
const split = z.object({ open: decimal, close: decimal });
/** One L2 level: [price, quantity], a zero quantity when the level is gone. */
const level = z.tuple([decimal, decimal]);
const bookSeq = z.number().int().nonnegative();
const BOOK_DELTA_DOC = [
  'L2 book delta: every price level whose aggregated resting quantity the command changed, with the',
  'quantity now at the market\'s precision (zero, e.g. "0.000": the level is gone). One per command',
  'that changed a level, after its order and trade events and before its book.top. A consumer keeps',
  'a book from a depth snapshot whose lastUpdateId is a book seq: it drops deltas with',
  'seq <= lastUpdateId; the first it applies must have prevSeq <= lastUpdateId, and each later one',
  'prevSeq = the seq of the delta before (else a delta was missed: resynchronise).',
].join(' ');

/** Engine -> everyone, keyed by symbol; `seq` is the symbol's gap-free sequence number. */
export const engineEvent = z.discriminatedUnion('type', [
  z.object({
    ...envelope,
    type: z.literal('order.accepted'),
    ...order,
    side,
    price: decimal,
    quantity: decimal,
  }),
  z.object({
    ...envelope,
    type: z.literal('order.rejected'),
    ...order,
    reason: outcomeReason,
  }),
  z.object({ ...envelope, type: z.literal('order.canceled'), ...order, remaining: decimal }),
  z.object({
    ...envelope,
    type: z.literal('order.expired'),
    ...order,
    remaining: decimal,
    reason: z.string(),
  }),
  z.object({ ...envelope, type: z.literal('order.amended'), ...order, price: decimal, quantity: decimal }),
  z.object({
    ...envelope,
    type: z.literal('trade'),
    symbol,
    seq: z.number().int().nonnegative(),
    tradeId: z.string().uuid(),
    /**
     * LIQUIDATION: the taker is a liquidation order (taker.orderId = liquidationId); ADL: an
     * auto-deleveraging close at the bankruptcy price, the liquidated user as taker and the
     * deleveraged position as maker, no fees; not a public trade. Absent on ordinary trades.
     */
    kind: z.enum(['LIQUIDATION', 'ADL']).optional(),
    price: decimal,
    qty: decimal,
    maker: z.object({ orderId: z.string(), user: address, side, split }),
    taker: z.object({ orderId: z.string(), user: address, side, split }),
  }),
  z.object({
    ...envelope,
    type: z.literal('book.top'),
    symbol,
    seq: z.number().int().nonnegative(),
    bidPrice: decimal,
    bidQty: decimal,
    askPrice: decimal,
    askQty: decimal,
  }),
  z
    .object({
      ...envelope,
      type: z.literal('book.delta'),
      symbol,
      seq: bookSeq.describe("the book's sequence after the command (Binance u)"),
      firstSeq: bookSeq.describe("the sequence of the command's first event (Binance U)"),
      prevSeq: bookSeq.describe('seq of the previous book.delta of the symbol, 0 for the first (Binance pu)'),
      bids: z.array(level).describe('changed bid levels [price, quantity], best (highest) first'),
      asks: z.array(level).describe('changed ask levels [price, quantity], best (lowest) first'),
    })
    .describe(BOOK_DELTA_DOC),
  z.object({
    ...envelope,
    type: z.literal('market.status'),
    symbol,
    seq: z.number().int().nonnegative(),
    status: z.enum(['TRADING', 'HALT', 'CLOSE']),
  }),
  /**
   * The last event of a `liquidation.place`: how much of it the book filled and how much ADL
   * closed (filledQty + adlQty = quantity unless the position was already smaller: then the rest
   * is `unfilledQty`), routed to the liquidated user's risk shard, which records the force order.
   */
  z.object({
    ...envelope,
    type: z.literal('liquidation.done'),
    symbol,
    seq: z.number().int().nonnegative(),
    liquidationId: z.string().uuid(),
    user: address,
    side,
    quantity: decimal,
    filledQty: decimal,
    /** Average price of the book fills, "0" when none. */
    avgPrice: decimal,
    adlQty: decimal,
    unfilledQty: decimal,
    bankruptcyPrice: decimal,
  }),
  /**
   * ADL quantiles (1-5, 5 first in line; 0 for no position) of the symbol's positions after the
   * engine applied new scores, emitted when any changed: the whole symbol's list, per side.
   */
  z.object({
    ...envelope,
    type: z.literal('adl.quantiles'),
    symbol,
    seq: z.number().int().nonnegative(),
    long: z.array(z.tuple([address, z.number().int().min(0).max(5)])),
    short: z.array(z.tuple([address, z.number().int().min(0).max(5)])),
  }),
  /**
   * The last event of a command forwarded by risk: its outcome, for the user's risk shard to answer
   * the requester once the command's fills are settled (read-your-writes for the caller).
   */
  z.object({
    ...envelope,
    type: z.literal('command.result'),
    symbol,
    seq: z.number().int().nonnegative(),
    user: address,
    command: z.enum(['order.place', 'order.cancel', 'order.cancelAll', 'order.amend']),
    orderId: z.string().optional(),
    replyTo: z.object({ topic: z.string(), key: z.string(), correlationId: z.string() }).optional(),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: outcomeError.optional(),
  }),
]);
export type EngineEvent = z.infer<typeof engineEvent>;

/** The FAPI Order record (spec: Order), as risk keeps it; `user` is the owner (not on the wire). */
export const orderRecord = z.object({
  orderId: z.string(),
  user: address,
  symbol,
  status: z.enum(['NEW', 'PARTIALLY_FILLED', 'FILLED', 'CANCELED', 'REJECTED']),
  clientOrderId: z.string(),
  price: decimal,
  avgPrice: decimal,
  origQty: decimal,
  executedQty: decimal,
  cumQuote: decimal,
  timeInForce: z.string(),
  type: z.string(),
  origType: z.string(),
  reduceOnly: z.boolean(),
  side,
  positionSide: z.literal('BOTH'),
  stopPrice: decimal,
  workingType: z.string(),
  priceProtect: z.boolean(),
  selfTradePreventionMode: z.string(),
  time: ms,
  updateTime: ms,
});
export type OrderRecord = z.infer<typeof orderRecord>;

/** One user's side of a trade (GET /fapi/v1/userTrades row). */
export const userTrade = z.object({
  tradeId: z.string().uuid(),
  orderId: z.string(),
  user: address,
  symbol,
  side,
  price: decimal,
  qty: decimal,
  quoteQty: decimal,
  commission: decimal,
  commissionAsset: z.string(),
  realizedPnl: decimal,
  maker: z.boolean(),
  time: ms,
});
export type UserTrade = z.infer<typeof userTrade>;

/** Risk -> everyone, keyed by user: balances, positions and income as settled. */
export const accountEvent = z.discriminatedUnion('type', [
  z.object({
    ...envelope,
    type: z.literal('balance'),
    user: address,
    asset: z.literal('USDT'),
    walletBalance: decimal,
    frozen: decimal,
  }),
  z.object({
    ...envelope,
    type: z.literal('position'),
    user: address,
    symbol,
    size: decimal,
    entryPrice: decimal,
    leverage: z.number().int(),
  }),
  z.object({
    ...envelope,
    type: z.literal('income'),
    user: address,
    symbol,
    incomeType: z.enum(['REALIZED_PNL', 'FUNDING_FEE', 'COMMISSION', 'INSURANCE_CLEAR']),
    income: decimal,
    asset: z.literal('USDT'),
    tradeId: z.string(),
    info: z.string(),
  }),
  /** The order's whole record after each change (accepted, filled, canceled, expired, rejected). */
  z.object({ ...envelope, type: z.literal('order'), user: address, order: orderRecord }),
  z.object({ ...envelope, type: z.literal('trade'), user: address, trade: userTrade }),
  /**
   * A liquidation (the liquidated user) or an ADL close (each deleveraged counterparty), once
   * complete: the force order record (GET /fapi/v1/forceOrders) and the user data stream's source.
   */
  z.object({
    ...envelope,
    type: z.literal('forceOrder'),
    user: address,
    forceOrder: z.object({
      orderId: z.string(),
      symbol,
      autoCloseType: z.enum(['LIQUIDATION', 'ADL']),
      side,
      price: decimal.describe(
        'liquidation: the bankruptcy price; ADL: the close price (the bankruptcy price)',
      ),
      avgPrice: decimal,
      origQty: decimal,
      executedQty: decimal,
      /** Liquidation clearance fee paid to the insurance fund (0 for ADL). */
      fee: decimal,
      time: ms,
      updateTime: ms,
    }),
  }),
  /**
   * Margin ratio reached the margin-call level (Binance MARGIN_CALL): the account's cross wallet
   * and the positions at risk, at the mark that triggered it.
   */
  z.object({
    ...envelope,
    type: z.literal('marginCall'),
    user: address,
    crossWalletBalance: decimal,
    positions: z.array(
      z.object({
        symbol,
        positionSide: z.enum(['LONG', 'SHORT']),
        positionAmt: decimal,
        marginType: z.enum(['CROSSED', 'ISOLATED']),
        isolatedWallet: decimal,
        markPrice: decimal,
        unrealizedPnl: decimal,
        maintMargin: decimal,
      }),
    ),
  }),
  /**
   * A movement of the insurance fund's share held by one risk partition (the deployment's fund is
   * the sum over partitions): clearance fees and funding dust in, bankrupt losses out. Keyed
   * `insurance`. `balance` is the partition's share after it.
   */
  z.object({
    ...envelope,
    type: z.literal('insurance'),
    partition: z.number().int().nonnegative(),
    symbol,
    kind: z.enum(['LIQUIDATION_FEE', 'BANKRUPTCY_LOSS', 'FUNDING_DUST']),
    amount: decimal,
    balance: decimal,
    ref: z.string(),
  }),
  /** The algo order's whole record after each change (placed, triggered, finished, canceled, expired, failed). */
  z.object({ ...envelope, type: z.literal('algoOrder'), user: address, algo: algoOrderRecord }),
  /** The user's leverage on a symbol after a `leverage.set` that changed it (Binance ACCOUNT_CONFIG_UPDATE). */
  z.object({
    ...envelope,
    type: z.literal('leverage'),
    user: address,
    symbol,
    leverage: z.number().int().positive(),
  }),
]);
export type AccountEvent = z.infer<typeof accountEvent>;

const indexPriceEvent = z.object({
  ...envelope,
  type: z.literal('price.index'),
  symbol,
  indexPrice: decimal,
  source: z.string(),
});
const markPriceEvent = z
  .object({
    ...envelope,
    type: z.literal('price.mark'),
    symbol,
    markPrice: decimal,
    indexPrice: decimal,
    lastPrice: decimal.describe('the last trade price, "0" before the first trade'),
    premiumIndex: decimal.describe('the premium index sample taken with this mark (impact prices vs index)'),
    fundingRate: decimal.describe("the current interval's estimated funding rate, clamped and capped"),
    interestRate: decimal,
    nextFundingTime: ms,
  })
  .describe(
    'The mark price, derived by market-data from the index, the book (premium) and the last price; ' +
      'risk, triggers, funding and replays all use these, never a mark of their own.',
  );

/** Price sources and market data -> everyone, keyed by symbol: index prices and the marks derived from them. */
export const priceEvent = z.discriminatedUnion('type', [indexPriceEvent, markPriceEvent]);
export type PriceEvent = z.infer<typeof priceEvent>;
export type IndexPriceEvent = z.infer<typeof indexPriceEvent>;
export type MarkPriceEvent = z.infer<typeof markPriceEvent>;

/** Funding service -> risk, keyed by symbol. */
export const fundingEvent = z.object({
  ...envelope,
  type: z.literal('funding.settle'),
  symbol,
  fundingRate: decimal,
  markPrice: decimal,
  fundingTime: ms,
});
export type FundingEvent = z.infer<typeof fundingEvent>;

/**
 * The engine -> everyone, keyed by symbol, one partition: each market's whole current configuration
 * after an operator change (compacted in Kafka: the latest message per symbol is the market).
 */
export const marketState = z.object({
  ...envelope,
  type: z.literal('market.state'),
  symbol,
  market: z.record(z.string(), z.unknown()),
  actor: z.string(),
  action: z.enum(['add', 'pause', 'resume', 'delist']),
});
export type MarketState = z.infer<typeof marketState>;
