import { v4 as uuidv4 } from 'uuid';
import { FapiError } from '../errors/exceptions';
import { z } from 'zod';
import { CLIENT_ORDER_ID, FapiFields, fapiParam as P } from './param-schemas';
import { type Money, type RawParams, required, scalar } from './params';

export { CLIENT_ORDER_ID };

export const ORDER_TYPES = [
  'LIMIT',
  'MARKET',
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
const TYPE_ALIASES: Record<string, OrderType> = { STOP_LIMIT: 'STOP', TAKE_PROFIT_LIMIT: 'TAKE_PROFIT' };
export const TRIGGER_TYPES: readonly OrderType[] = [
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
];
const PRICED_TYPES: readonly OrderType[] = ['LIMIT', 'STOP', 'TAKE_PROFIT'];

export interface NewOrderRequest {
  symbol: string;
  side: 'BUY' | 'SELL';
  type: OrderType;
  /** What the client sent as `type` (an alias such as STOP_LIMIT is echoed as origType's source). */
  origType: string;
  quantity?: Money;
  quoteOrderQty?: Money;
  price?: Money;
  stopPrice?: Money;
  timeInForce: 'GTC' | 'IOC' | 'FOK' | 'GTX';
  reduceOnly: boolean;
  positionSide: 'BOTH';
  workingType: 'CONTRACT_PRICE' | 'MARK_PRICE';
  priceProtect: boolean;
  clientOrderId: string;
  newOrderRespType: 'ACK' | 'RESULT';
  selfTradePreventionMode: 'EXPIRE_TAKER' | 'EXPIRE_MAKER' | 'EXPIRE_BOTH' | 'NONE';
}

/** New Order's parameters: what parses them is what documents them (OpenAPI). */
export const NEW_ORDER_PARAMS = {
  symbol: P.symbol(),
  side: P.oneOf(['BUY', 'SELL'], 'INVALID_DATA_FOR_PARAMETER', 'Order side'),
  type: P.oneOf(
    [...ORDER_TYPES, 'STOP_LIMIT', 'TAKE_PROFIT_LIMIT'],
    'INVALID_DATA_FOR_PARAMETER',
    'Order type (STOP_LIMIT = STOP, TAKE_PROFIT_LIMIT = TAKE_PROFIT; TRAILING_STOP_MARKET is an algo order)',
    'Invalid orderType.',
  ),
  positionSide: P.oneOf(
    ['BOTH', 'LONG', 'SHORT'],
    'INVALID_DATA_FOR_PARAMETER',
    'One-way mode only: LONG and SHORT are accepted and treated as BOTH',
  ).default('BOTH'),
  quantity: P.decimal('Base quantity (floored to the lot size); or send quoteOrderQty').optional(),
  quoteOrderQty: P.decimal('MARKET orders: quote amount to spend instead of quantity').optional(),
  price: P.decimal('Limit price; required for LIMIT, STOP and TAKE_PROFIT').optional(),
  stopPrice: P.decimal('Trigger price; required for the STOP and TAKE_PROFIT types').optional(),
  timeInForce: P.oneOf(
    ['GTC', 'IOC', 'FOK', 'GTX'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'GTX = post-only (LIMIT with a price only)',
  ).default('GTC'),
  newClientOrderId: P.clientOrderId(
    'Your id for the order (unique among open orders; default: a UUID)',
    true,
  ).optional(),
  reduceOnly: P.bool('Only reduce the position').default(false),
  workingType: P.oneOf(
    ['CONTRACT_PRICE', 'MARK_PRICE'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'Price that fires a trigger order',
  ).default('CONTRACT_PRICE'),
  priceProtect: P.bool('Trigger orders: refuse when mark and last price are far apart').default(false),
  newOrderRespType: P.oneOf(
    ['ACK', 'RESULT'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'Response detail',
  ).default('ACK'),
  selfTradePreventionMode: P.oneOf(
    ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'NONE'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'What happens when the order would trade with your own',
  ).default('EXPIRE_TAKER'),
} satisfies Record<string, z.ZodType>;

/**
 * New Order parameters, checked in the spec's order of rules that need no state: the symbol's
 * existence, lot and notional checks need the market and happen after this.
 */
export function parseNewOrder(params: RawParams): NewOrderRequest {
  const f = new FapiFields(NEW_ORDER_PARAMS, params);
  const symbol = f.get('symbol');
  const side = f.get('side');
  const rawType = required(params, 'type');
  if (rawType === 'TRAILING_STOP_MARKET')
    throw new FapiError(
      'INVALID_DATA_FOR_PARAMETER',
      'TRAILING_STOP_MARKET is placed with POST /fapi/v1/algoOrder.',
    );
  const given = f.get('type');
  const type: OrderType = TYPE_ALIASES[given] ?? (given as OrderType);
  f.get('positionSide');

  const quantity = f.get('quantity');
  const quoteOrderQty = f.get('quoteOrderQty');
  if (quantity && quoteOrderQty)
    throw new FapiError('PARAMETER_NOT_REQUIRED', 'Send either quantity or quoteOrderQty, not both.');
  if (!quantity && !quoteOrderQty) required(params, 'quantity');

  const price = f.get('price');
  if (PRICED_TYPES.includes(type) && !price) required(params, 'price');
  const stopPrice = f.get('stopPrice');
  if (TRIGGER_TYPES.includes(type) && !stopPrice) required(params, 'stopPrice');

  const timeInForce = f.get('timeInForce');
  if (timeInForce === 'GTX' && (type !== 'LIMIT' || !price))
    throw new FapiError(
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'GTX (post-only) needs a LIMIT order with a price.',
    );

  // Not "" (an empty id counts as not sent, as before): scalar keeps the one-value rule.
  const clientOrderId =
    scalar(params, 'newClientOrderId') === undefined ? uuidv4() : f.get('newClientOrderId');
  if (clientOrderId === undefined)
    throw new FapiError(
      'ILLEGAL_CHARS',
      "Illegal characters found in parameter 'newClientOrderId'; legal range is '^[\\.A-Z\\:/a-z0-9_-]{1,36}$'.",
    );

  return {
    symbol,
    side,
    type,
    origType: rawType,
    quantity,
    quoteOrderQty,
    price,
    stopPrice,
    timeInForce,
    reduceOnly: f.get('reduceOnly'),
    positionSide: 'BOTH',
    workingType: f.get('workingType'),
    priceProtect: f.get('priceProtect'),
    clientOrderId,
    newOrderRespType: f.get('newOrderRespType'),
    selfTradePreventionMode: f.get('selfTradePreventionMode'),
  };
}
