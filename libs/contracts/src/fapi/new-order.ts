import { v4 as uuidv4 } from 'uuid';
import { FapiError } from '../errors/exceptions';
import { boolParam, decimalParam, enumParam, type Money, type RawParams, required, scalar } from './params';

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

export const CLIENT_ORDER_ID = /^[A-Za-z0-9_.-]{1,36}$/;

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

/**
 * New Order parameters, checked in the spec's order of rules that need no state: the symbol's
 * existence, lot and notional checks need the market and happen after this.
 */
export function parseNewOrder(params: RawParams): NewOrderRequest {
  const symbol = required(params, 'symbol');
  const side = enumParam(params, 'side', ['BUY', 'SELL'] as const, 'INVALID_DATA_FOR_PARAMETER');
  const rawType = required(params, 'type');
  if (rawType === 'TRAILING_STOP_MARKET')
    throw new FapiError(
      'INVALID_DATA_FOR_PARAMETER',
      'TRAILING_STOP_MARKET is placed with POST /fapi/v1/algoOrder.',
    );
  const type: OrderType | undefined =
    TYPE_ALIASES[rawType] ??
    ((ORDER_TYPES as readonly string[]).includes(rawType) ? (rawType as OrderType) : undefined);
  if (!type) throw new FapiError('INVALID_DATA_FOR_PARAMETER', 'Invalid orderType.');
  // One-way mode only: LONG and SHORT are accepted and treated as BOTH.
  enumParam(params, 'positionSide', ['BOTH', 'LONG', 'SHORT'] as const, 'INVALID_DATA_FOR_PARAMETER', 'BOTH');

  const quantity = decimalParam(params, 'quantity');
  const quoteOrderQty = decimalParam(params, 'quoteOrderQty');
  if (quantity && quoteOrderQty)
    throw new FapiError('PARAMETER_NOT_REQUIRED', 'Send either quantity or quoteOrderQty, not both.');
  if (!quantity && !quoteOrderQty) required(params, 'quantity');

  const price = decimalParam(params, 'price');
  if (PRICED_TYPES.includes(type) && !price) required(params, 'price');
  const stopPrice = decimalParam(params, 'stopPrice');
  if (TRIGGER_TYPES.includes(type) && !stopPrice) required(params, 'stopPrice');

  const timeInForce = enumParam(
    params,
    'timeInForce',
    ['GTC', 'IOC', 'FOK', 'GTX'] as const,
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'GTC',
  );
  if (timeInForce === 'GTX' && (type !== 'LIMIT' || !price))
    throw new FapiError(
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'GTX (post-only) needs a LIMIT order with a price.',
    );

  const clientOrderId = scalar(params, 'newClientOrderId') ?? uuidv4();
  if (!CLIENT_ORDER_ID.test(clientOrderId))
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
    reduceOnly: boolParam(params, 'reduceOnly'),
    positionSide: 'BOTH',
    workingType: enumParam(
      params,
      'workingType',
      ['CONTRACT_PRICE', 'MARK_PRICE'] as const,
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'CONTRACT_PRICE',
    ),
    priceProtect: boolParam(params, 'priceProtect'),
    clientOrderId,
    newOrderRespType: enumParam(
      params,
      'newOrderRespType',
      ['ACK', 'RESULT'] as const,
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'ACK',
    ),
    selfTradePreventionMode: enumParam(
      params,
      'selfTradePreventionMode',
      ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'NONE'] as const,
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      'EXPIRE_TAKER',
    ),
  };
}
