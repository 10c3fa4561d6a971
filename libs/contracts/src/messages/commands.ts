import { z } from 'zod';
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
  }),
  z.object({
    ...envelope,
    type: z.literal('order.cancel'),
    user: address,
    symbol,
    orderId: z.string().optional(),
    clientOrderId: z.string().optional(),
  }),
  z.object({ ...envelope, type: z.literal('order.cancelAll'), user: address, symbol }),
  z.object({
    ...envelope,
    type: z.literal('order.amend'),
    user: address,
    symbol,
    orderId: z.string(),
    price: decimal,
    quantity: decimal,
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

/** Replies to a request (keyed by the requester's reply key); `error` carries a spec code. */
export const reply = z.object({
  correlationId: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.object({ code: z.union([z.number().int(), z.string()]), msg: z.string() }).optional(),
  time: ms,
});
export type Reply = z.infer<typeof reply>;
