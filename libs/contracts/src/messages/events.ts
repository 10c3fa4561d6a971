import { z } from 'zod';
import { address, decimal, envelope, ms, side, symbol } from './primitives';

const order = {
  orderId: z.string(),
  clientOrderId: z.string(),
  user: address,
  symbol,
  seq: z.number().int().nonnegative(),
};
const split = z.object({ open: decimal, close: decimal });

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
    code: z.number().int(),
    reason: z.string(),
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
  z.object({
    ...envelope,
    type: z.literal('market.status'),
    symbol,
    seq: z.number().int().nonnegative(),
    status: z.enum(['TRADING', 'HALT', 'CLOSE']),
  }),
]);
export type EngineEvent = z.infer<typeof engineEvent>;

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
    incomeType: z.enum(['REALIZED_PNL', 'FUNDING_FEE', 'COMMISSION']),
    income: decimal,
    asset: z.literal('USDT'),
    tradeId: z.string(),
    info: z.string(),
  }),
]);
export type AccountEvent = z.infer<typeof accountEvent>;

/** Price sources and market data -> everyone, keyed by symbol. */
export const priceEvent = z.object({
  ...envelope,
  type: z.literal('price.index'),
  symbol,
  indexPrice: decimal,
  source: z.string(),
});
export type PriceEvent = z.infer<typeof priceEvent>;

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
