import {
  CLIENT_ORDER_ID,
  FapiError,
  type NewOrderRequest,
  type RawParams,
  decimalParam,
  required,
  scalar,
} from '@perp/contracts';
import { type Market, type Money } from '@perp/domain';
import type { RiskCommandBody } from '../../risk/risk-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_BATCH_ORDERS = 5;
export const MAX_BATCH_CANCELS = 10;

/** Price filter: a price off the market's tick grid is a filter failure (-1013), as on Binance. */
export function checkTick(market: Market, name: string, price?: Money): void {
  if (price && !price.mod(market.tickSize).isZero())
    throw new FapiError(
      'INVALID_QUANTITY',
      `Filter failure: ${name} must be a multiple of ${market.tickSize}.`,
    );
}

/** The risk command of a parsed New Order for `user`. */
export function newOrderCommand(
  req: NewOrderRequest,
  market: Market,
  user: string,
  orderId: string,
): Extract<RiskCommandBody, { type: 'order.new' }> {
  checkTick(market, 'price', req.price);
  checkTick(market, 'stopPrice', req.stopPrice);
  return {
    type: 'order.new',
    orderId,
    clientOrderId: req.clientOrderId,
    user,
    symbol: market.symbol,
    side: req.side,
    orderType: req.type,
    timeInForce: req.timeInForce,
    ...(req.quantity ? { quantity: req.quantity.toFixed() } : {}),
    ...(req.quoteOrderQty ? { quoteOrderQty: req.quoteOrderQty.toFixed() } : {}),
    ...(req.price ? { price: req.price.toFixed() } : {}),
    ...(req.stopPrice ? { stopPrice: req.stopPrice.toFixed() } : {}),
    reduceOnly: req.reduceOnly,
    workingType: req.workingType,
    priceProtect: req.priceProtect,
    selfTradePreventionMode: req.selfTradePreventionMode,
  };
}

/**
 * orderId (a UUID, else -1100) or origClientOrderId (the client id alphabet, else -1100: no order
 * can have it); neither is -1102. orderId wins when both are sent.
 */
export function orderRef(params: RawParams): { orderId: string } | { clientOrderId: string } {
  const orderId = scalar(params, 'orderId');
  const clientOrderId = scalar(params, 'origClientOrderId');
  if (orderId !== undefined && orderId !== '') {
    if (!UUID.test(orderId))
      throw new FapiError('ILLEGAL_CHARS', "Illegal characters found in parameter 'orderId'.");
    return { orderId: orderId.toLowerCase() };
  }
  if (clientOrderId !== undefined && clientOrderId !== '') {
    if (!CLIENT_ORDER_ID.test(clientOrderId))
      throw new FapiError('ILLEGAL_CHARS', "Illegal characters found in parameter 'origClientOrderId'.");
    return { clientOrderId };
  }
  throw new FapiError(
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null.",
  );
}

/** A JSON array parameter (batchOrders, orderIdList, ...): -1102 when missing, not JSON or not an array. */
export function jsonArrayParam(params: RawParams, name: string, max: number): unknown[] {
  const raw = required(params, name);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', `Parameter '${name}' is not valid JSON.`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > max)
    throw new FapiError(
      'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
      `Parameter '${name}' must be a JSON array of 1 to ${max} entries.`,
    );
  return parsed;
}

/** One batch entry as request parameters: an object whose values are scalars (numbers and booleans as text). */
export function batchEntryParams(entry: unknown): RawParams {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new FapiError('MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'Each batch order must be a JSON object.');
  const out: RawParams = {};
  for (const [k, v] of Object.entries(entry)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else if (v !== null) out[k] = v;
  }
  return out;
}

/** A required decimal above zero: missing -1102, unparseable -1100, zero or negative -1013. */
export function positiveDecimal(params: RawParams, name: string): Money {
  const v = decimalParam(params, name);
  if (v === undefined) required(params, name);
  if (!v?.gt(0)) throw new FapiError('INVALID_QUANTITY', `Parameter '${name}' must be above zero.`);
  return v;
}
