import {
  type AlgoOrderCommandBody,
  CLIENT_ORDER_ID,
  FapiError,
  NativeError,
  type NativeErrorCode,
  parseAlgoOrder,
  parseNewOrder,
  type RawParams,
} from '@perp/contracts';
import {
  type Market,
  type MarketRegistry,
  MAX_DECIMAL_TEXT,
  Money,
  normalizeSymbol,
  parseDecimal,
} from '@perp/domain';
import { z } from 'zod';
import { NativeFields, nativeIssue } from '../../openapi/native-fields';
import { newOrderCommand } from '../../fapi/orders/order-params';
import type { RiskCommandBody } from '../../risk/risk-client';
import { nativeFromFapi } from './native-refusal';

export type Json = Record<string, unknown>;
export type NewOrderCommand = Extract<RiskCommandBody, { type: 'order.new' }>;

/** Conditional types: wait for the mark to reach trigger_price, then a MARKET or a LIMIT at price. */
export const NATIVE_CONDITIONAL_TYPES = {
  STOP_MARKET: 'STOP_MARKET',
  STOP_LIMIT: 'STOP',
  TAKE_PROFIT_MARKET: 'TAKE_PROFIT_MARKET',
  TAKE_PROFIT_LIMIT: 'TAKE_PROFIT',
} as const;
type ConditionalType = keyof typeof NATIVE_CONDITIONAL_TYPES;

/** A validated POST /api/v1/orders body. */
export interface NativeOrderInput {
  market: Market;
  side: 'BUY' | 'SELL';
  type: 'LIMIT' | 'MARKET' | ConditionalType;
  /** Conditional types: the mark price that fires the order. */
  triggerPrice?: Money;
  quantity: Money;
  price?: Money;
  leverage?: number;
  reduceOnly: boolean;
  timeInForce: 'GTC' | 'IOC' | 'FOK' | 'GTX';
  clientOrderId?: string;
  /** Market orders only: the largest adverse move of the worst fill from the mark price, a fraction. */
  maxSlippage?: Money;
}

const TIME_IN_FORCE: Record<string, NativeOrderInput['timeInForce']> = {
  GTC: 'GTC',
  IOC: 'IOC',
  FOK: 'FOK',
  GTX: 'GTX',
  POST_ONLY: 'GTX',
};

/** A decimal given as a string (or a JSON number, read as its shortest decimal form). */
const decimalValue = (code: NativeErrorCode, msg: string) =>
  z
    .union([z.string().max(MAX_DECIMAL_TEXT, nativeIssue(code, msg)), z.number()], {
      error: nativeIssue(code, msg),
    })
    .transform((v, ctx) => {
      const d = parseDecimal(v);
      if (d) return d;
      ctx.issues.push({ code: 'custom', input: v, message: nativeIssue(code, msg) });
      return z.NEVER;
    });

/** One of `values` (keys, any case, surrounding spaces ignored); anything else is INVALID_REQUEST. */
function caseless<T extends string>(name: string, values: Record<string, T>, description: string) {
  const names = Object.keys(values).map((k) => k.toLowerCase());
  const bad = nativeIssue('INVALID_REQUEST', `${name} must be one of ${names.join(', ')}`);
  return z
    .string({ error: bad })
    .transform((v, ctx) => {
      const hit = values[v.trim().toUpperCase()];
      if (hit) return hit;
      ctx.issues.push({ code: 'custom', input: v, message: bad });
      return z.NEVER;
    })
    .optional()
    .meta({ description: `${description} (any case)`, enum: names });
}

const symbolField = (description: string) =>
  z
    .string({ error: nativeIssue('INVALID_SYMBOL', 'symbol must be a string such as BTC-USD') })
    .optional()
    .meta({ description, examples: ['BTC-USD'] });

/** POST /api/v1/orders: each field is read (and documented) by its schema; market rules follow. */
export const NATIVE_ORDER_BODY = {
  symbol: symbolField('Market, any alias (BTC-USD, BTC/USDT, btcusdt); or send market_symbol'),
  market_symbol: symbolField('Same as symbol'),
  side: caseless('side', { BUY: 'BUY', SELL: 'SELL' } as const, 'Required'),
  type: caseless(
    'type',
    {
      LIMIT: 'LIMIT',
      MARKET: 'MARKET',
      STOP_MARKET: 'STOP_MARKET',
      STOP_LIMIT: 'STOP_LIMIT',
      TAKE_PROFIT_MARKET: 'TAKE_PROFIT_MARKET',
      TAKE_PROFIT_LIMIT: 'TAKE_PROFIT_LIMIT',
    } as const,
    'Required. The stop_* and take_profit_* types are conditional: they wait for the mark price to reach ' +
      'trigger_price (a stop buys on a rise and sells on a fall, a take-profit the other way), then become ' +
      'a market order, or a limit order at price for the *_limit forms',
  ),
  quantity: decimalValue('INVALID_AMOUNT', 'quantity must be a positive decimal string')
    .refine((q) => q.gt(0), nativeIssue('INVALID_AMOUNT', 'quantity must be a positive decimal string'))
    .meta({ description: 'Base quantity, positive (floored to the lot size)', examples: ['0.01'] }),
  price: decimalValue('INVALID_REQUEST', 'price must be a positive decimal string')
    .refine((p) => p.gt(0), nativeIssue('INVALID_REQUEST', 'price must be a positive decimal string'))
    .optional()
    .meta({
      description: 'Limit orders: required (PRICE_REQUIRED), on the tick size. Market orders: not accepted',
    }),
  trigger_price: decimalValue('INVALID_REQUEST', 'trigger_price must be a positive decimal string')
    .refine((p) => p.gt(0), nativeIssue('INVALID_REQUEST', 'trigger_price must be a positive decimal string'))
    .optional()
    .meta({
      description:
        'Conditional types: required, on the tick size; the order waits until the mark price reaches it ' +
        '(already reached: INVALID_REQUEST). Other types: not accepted',
    }),
  leverage: z
    .union(
      [
        z.number().int(),
        z
          .string()
          .regex(/^\d{1,4}$/)
          .transform(Number),
      ],
      {
        error: nativeIssue('INVALID_LEVERAGE', 'leverage must be an integer'),
      },
    )
    .refine((n) => n >= 1, nativeIssue('INVALID_LEVERAGE', 'leverage must be at least 1'))
    .optional()
    .meta({ description: '1 to the market maximum; set first, as the standing leverage of the symbol' }),
  reduce_only: z
    .union([z.boolean(), z.enum(['true', 'false'])], {
      error: nativeIssue('INVALID_REQUEST', 'reduce_only must be true or false'),
    })
    .transform((v) => v === true || v === 'true')
    .optional(),
  time_in_force: caseless('time_in_force', TIME_IN_FORCE, 'Default gtc; gtx and post_only = post-only limit'),
  client_order_id: z
    .string()
    .regex(
      CLIENT_ORDER_ID,
      nativeIssue('INVALID_REQUEST', 'client_order_id must be 1-36 characters of A-Z a-z 0-9 _ . -'),
    )
    .optional()
    .meta({ description: 'Your id, unique among your open orders' }),
  max_slippage: decimalValue(
    'INVALID_REQUEST',
    'max_slippage must be a fraction from 0 to below 1, e.g. "0.01"',
  )
    .refine(
      (m) => !m.lt(0) && m.lt(1),
      nativeIssue('INVALID_REQUEST', 'max_slippage must be a fraction from 0 to below 1, e.g. "0.01"'),
    )
    .optional()
    .meta({
      description:
        'Market orders: largest adverse move of the expected worst fill from the mark price, as a fraction ' +
        '("0.01" = 1 %), simulated against the order book as GET /fapi/v1/depth serves it (up to 1000 levels ' +
        'a side; what the book cannot fill expires, an order larger than a full side is refused): ' +
        'SLIPPAGE_EXCEEDED. Ignored on limit orders.',
    }),
};

type Body = NativeFields<typeof NATIVE_ORDER_BODY>;

/**
 * `symbol` or `market_symbol`, any alias (BTC-USD, btc_usdt ...) normalized as the domain does;
 * unknown or not trading: 400 INVALID_SYMBOL.
 */
export function orderMarket(body: Body, markets: MarketRegistry): Market {
  const given = [body.get('symbol'), body.get('market_symbol')].filter((v): v is string => v !== undefined);
  if (given.length === 0) throw new NativeError('INVALID_SYMBOL', 'symbol is required');
  const symbols = new Set(given.map(normalizeSymbol));
  if (symbols.size > 1)
    throw new NativeError('INVALID_REQUEST', 'symbol and market_symbol name different markets');
  const symbol = [...symbols][0];
  const market = markets.find(symbol);
  if (!market) throw new NativeError('INVALID_SYMBOL', `market ${symbol} not found`);
  if (market.status !== 'TRADING')
    throw new NativeError('INVALID_SYMBOL', `market ${market.symbol} is not trading (${market.status})`);
  return market;
}

/** Validates a POST /api/v1/orders body in the order a client would fix it: market, side, type, amounts. */
export function parseNativeOrder(raw: unknown, markets: MarketRegistry): NativeOrderInput {
  const body = new NativeFields(NATIVE_ORDER_BODY, raw);
  const market = orderMarket(body, markets);
  const side = body.get('side');
  if (!side) throw new NativeError('INVALID_REQUEST', 'side is required (buy or sell)');
  const type = body.get('type');
  if (!type) throw new NativeError('INVALID_REQUEST', 'type is required (limit or market)');

  const quantity = body.get('quantity');
  const conditional = type in NATIVE_CONDITIONAL_TYPES;
  const triggerPrice = body.get('trigger_price');
  if (conditional && !triggerPrice)
    throw new NativeError('INVALID_REQUEST', 'trigger_price is required for stop and take-profit orders');
  if (!conditional && triggerPrice)
    throw new NativeError('INVALID_REQUEST', 'trigger_price is for the stop and take-profit types only');
  if (triggerPrice && !triggerPrice.mod(market.tickSize).isZero())
    throw new NativeError('INVALID_REQUEST', `trigger_price must be a multiple of ${market.tickSize}`);

  let price: Money | undefined;
  if (type === 'LIMIT' || type.endsWith('_LIMIT')) {
    if (!body.has('price')) throw new NativeError('PRICE_REQUIRED', 'price is required for limit orders');
    price = body.get('price')!;
    if (!price.mod(market.tickSize).isZero())
      throw new NativeError('INVALID_REQUEST', `price must be a multiple of ${market.tickSize}`);
  } else if (body.has('price')) {
    throw new NativeError(
      'INVALID_REQUEST',
      'market orders take no price; use max_slippage to bound the fill',
    );
  }
  if (conditional && body.has('time_in_force'))
    throw new NativeError('INVALID_REQUEST', 'stop and take-profit orders take no time_in_force');

  const leverage = body.get('leverage');
  if (leverage !== undefined && leverage > market.maxLeverage)
    throw new NativeError(
      'INVALID_LEVERAGE',
      `leverage must be an integer from 1 to ${market.maxLeverage} on ${market.symbol}`,
    );
  const reduceOnly = body.get('reduce_only') ?? false;
  const timeInForce = body.get('time_in_force') ?? 'GTC';
  if (timeInForce === 'GTX' && type !== 'LIMIT')
    throw new NativeError('INVALID_REQUEST', 'post-only (gtx) applies to limit orders only');

  const clientOrderId = body.get('client_order_id');
  const maxSlippage = body.get('max_slippage');

  return {
    market,
    side,
    type,
    triggerPrice,
    quantity,
    price,
    leverage,
    reduceOnly,
    timeInForce,
    clientOrderId,
    // A limit price bounds the fill already: max_slippage applies to market orders only.
    maxSlippage: type === 'MARKET' ? maxSlippage : undefined,
  };
}

/** The algo.new command of a conditional native order, built by the FAPI algo helpers (one command for both surfaces). */
export function nativeAlgoCommand(input: NativeOrderInput, user: string): AlgoOrderCommandBody {
  const params: RawParams = {
    symbol: input.market.symbol,
    side: input.side,
    type: NATIVE_CONDITIONAL_TYPES[input.type as ConditionalType],
    triggerPrice: input.triggerPrice!.toFixed(),
    quantity: input.quantity.toFixed(),
    reduceOnly: String(input.reduceOnly),
    workingType: 'MARK_PRICE',
    ...(input.price ? { price: input.price.toFixed() } : {}),
    ...(input.clientOrderId ? { clientAlgoId: input.clientOrderId } : {}),
  };
  try {
    return { ...parseAlgoOrder(params, 0), user };
  } catch (e) {
    if (e instanceof FapiError) throw nativeFromFapi(e);
    throw e;
  }
}

/**
 * The risk command of a validated native order, built by the FAPI New Order helpers so that both
 * surfaces send the same command (defaults, stored forms, tick check).
 */
export function nativeOrderCommand(input: NativeOrderInput, user: string, orderId: string): NewOrderCommand {
  if (input.type in NATIVE_CONDITIONAL_TYPES) throw new Error('a conditional order is an algo order');
  const params: RawParams = {
    symbol: input.market.symbol,
    side: input.side,
    type: input.type,
    quantity: input.quantity.toFixed(),
    timeInForce: input.timeInForce,
    reduceOnly: String(input.reduceOnly),
    ...(input.price ? { price: input.price.toFixed() } : {}),
    ...(input.clientOrderId ? { newClientOrderId: input.clientOrderId } : {}),
  };
  try {
    return newOrderCommand(parseNewOrder(params), input.market, user, orderId);
  } catch (e) {
    if (e instanceof FapiError) throw nativeFromFapi(e);
    throw e;
  }
}

/** The quantity risk will use: floored to the lot (the FAPI rule: a quantity off the lot grid is floored). */
export function lotQuantity(market: Market, quantity: Money): Money {
  return quantity.div(market.lotSize).integerValue(Money.ROUND_DOWN).times(market.lotSize);
}
