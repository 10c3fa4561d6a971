import { z } from 'zod';
import { address, decimal, ms, side, symbol } from './primitives';

export const algoOrderType = z.enum([
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
  'TRAILING_STOP_MARKET',
]);
export const algoStatus = z.enum(['NEW', 'TRIGGERED', 'FINISHED', 'CANCELED', 'EXPIRED', 'FAILED']);

/** POST /fapi/v1/algoOrder as the risk command (keyed by user); algoId is derived by risk. */
export const newAlgoOrder = {
  clientAlgoId: z.string().min(1).max(36),
  user: address,
  symbol,
  side,
  orderType: algoOrderType,
  quantity: decimal.optional(),
  price: decimal.optional(),
  /** Absent on trailing stops (they fire at the callback from the extreme). */
  triggerPrice: decimal.optional(),
  closePosition: z.boolean(),
  reduceOnly: z.boolean(),
  callbackRate: decimal.optional(),
  /** Trailing stops; absent = the mark when the command is applied. */
  activatePrice: decimal.optional(),
  timeInForce: z.enum(['GTC', 'GTD']),
  goodTillDate: ms.optional(),
  workingType: z.enum(['CONTRACT_PRICE', 'MARK_PRICE']),
  priceProtect: z.boolean(),
};

/** The FAPI algo order record (spec: Algo order) as risk keeps it; `user` is the owner. */
export const algoOrderRecord = z.object({
  algoId: z.number().int().nonnegative(),
  clientAlgoId: z.string(),
  user: address,
  algoType: z.literal('CONDITIONAL'),
  orderType: algoOrderType,
  symbol,
  side,
  positionSide: z.literal('BOTH'),
  timeInForce: z.enum(['GTC', 'GTD']),
  quantity: decimal,
  algoStatus,
  triggerPrice: decimal,
  price: decimal,
  closePosition: z.boolean(),
  priceProtect: z.boolean(),
  reduceOnly: z.boolean(),
  activatePrice: decimal.nullable(),
  callbackRate: decimal.nullable(),
  workingType: z.string(),
  createTime: ms,
  updateTime: ms,
  triggerTime: ms,
  goodTillDate: ms,
  /** The order it fired as ("" before), its fills so far. */
  actualOrderId: z.string(),
  /** Why it ended FAILED or EXPIRED (not on the wire). */
  reason: z.string().optional(),
});
export type AlgoOrderRecord = z.infer<typeof algoOrderRecord>;

/** The keeper's clock, one message per tick: what drives GTD expiry on the log. */
export const clockTick = z.object({
  id: z.string().min(1),
  v: z.literal(1),
  time: ms,
  type: z.literal('clock.tick'),
});
export type ClockTick = z.infer<typeof clockTick>;
