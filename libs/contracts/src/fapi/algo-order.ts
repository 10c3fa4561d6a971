import { randomUUID } from 'node:crypto';
import { isGoodTillDateFarEnough, isValidCallbackRate, type Money } from '@perp/domain';
import type { z } from 'zod';
import { FapiError } from '../errors/exceptions';
import type { MessageBody } from '../messages/primitives';
import type { RiskCommand } from '../messages/commands';
import { FapiFields, fapiParam as P } from './param-schemas';
import type { RawParams } from './params';

export const ALGO_TYPES = [
  'STOP',
  'STOP_MARKET',
  'TAKE_PROFIT',
  'TAKE_PROFIT_MARKET',
  'TRAILING_STOP_MARKET',
] as const;
type AlgoType = (typeof ALGO_TYPES)[number];
const ALIASES: Record<string, AlgoType> = { STOP_LIMIT: 'STOP', TAKE_PROFIT_LIMIT: 'TAKE_PROFIT' };
const PRICED: readonly AlgoType[] = ['STOP', 'TAKE_PROFIT'];
const CLOSE_POSITION_TYPES: readonly AlgoType[] = ['STOP_MARKET', 'TAKE_PROFIT_MARKET'];

/** A bad numeric field: Binance's algo service answers -1100 for each. */
const numeric = (description: string) => P.decimal(description).optional();

/** POST /fapi/v1/algoOrder's parameters: what parses them is what documents them (OpenAPI). */
export const ALGO_ORDER_PARAMS = {
  algoType: P.oneOf(['CONDITIONAL'], 'INVALID_DATA_FOR_PARAMETER', 'Only CONDITIONAL').default('CONDITIONAL'),
  symbol: P.symbol(),
  side: P.oneOf(['BUY', 'SELL'], 'INVALID_DATA_FOR_PARAMETER', 'Order side'),
  positionSide: P.oneOf(['BOTH'], 'INVALID_DATA_FOR_PARAMETER', 'One-way mode: BOTH only').default('BOTH'),
  type: P.oneOf(
    [...ALGO_TYPES, 'STOP_LIMIT', 'TAKE_PROFIT_LIMIT'],
    'INVALID_DATA_FOR_PARAMETER',
    'Algo order type (STOP_LIMIT = STOP, TAKE_PROFIT_LIMIT = TAKE_PROFIT)',
    'Invalid orderType.',
  ),
  timeInForce: P.oneOf(
    ['GTC', 'GTD'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'GTC, or GTD with goodTillDate',
  ).default('GTC'),
  quantity: numeric('Base quantity; not with closePosition'),
  price: numeric('Limit price after the trigger (STOP, TAKE_PROFIT)'),
  triggerPrice: numeric('Trigger price against the mark (alias stopPrice); not for TRAILING_STOP_MARKET'),
  stopPrice: numeric('Alias of triggerPrice'),
  workingType: P.oneOf(
    ['CONTRACT_PRICE', 'MARK_PRICE'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'Echoed; triggers use the mark price',
  ).default('CONTRACT_PRICE'),
  closePosition: P.bool('STOP_MARKET, TAKE_PROFIT_MARKET: close the whole position at firing').default(false),
  priceProtect: P.bool(
    'Hold the trigger while mark and last price differ by more than triggerProtect',
  ).default(false),
  reduceOnly: P.bool('Only reduce the position').default(false),
  activatePrice: numeric('TRAILING_STOP_MARKET: activation price (default: the mark)'),
  activationPrice: numeric('Alias of activatePrice'),
  callbackRate: numeric('TRAILING_STOP_MARKET: callback percent, 0.1 to 10'),
  goodTillDate: P.time('GTD: expiry, at least 600 s ahead').optional(),
  clientAlgoId: P.clientOrderId('Your id for the algo order (default: generated)').optional(),
  newOrderRespType: P.oneOf(['ACK', 'RESULT'], 'MANDATORY_PARAM_EMPTY_OR_MALFORMED', 'Ignored').optional(),
  selfTradePreventionMode: P.oneOf(
    ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH', 'NONE'],
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    'Accepted; fired orders use EXPIRE_TAKER',
  ).optional(),
} satisfies Record<string, z.ZodType>;

export type AlgoOrderCommandBody = Extract<MessageBody<RiskCommand>, { type: 'algo.new' }>;

function bad(msg: string): never {
  throw new FapiError('ILLEGAL_CHARS', msg);
}
function missing(name: string): never {
  throw new FapiError(
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    `Mandatory parameter '${name}' was not sent, was empty/null, or malformed.`,
  );
}
const positive = (name: string, v: Money | undefined) => {
  if (v !== undefined && !v.gt(0)) bad(`Parameter '${name}' must be above zero.`);
  return v;
};

/**
 * POST /fapi/v1/algoOrder in the spec's order: -1130 (algoType, side, positionSide, type), -1102
 * (missing triggerPrice, price, quantity, callbackRate, goodTillDate), -1106 (closePosition
 * conflicts), -1100 (bad numbers, callbackRate outside 0.1-10, goodTillDate under 600 s ahead).
 * `now` is the gateway's time the goodTillDate is measured from. The symbol is resolved by the caller.
 */
export function parseAlgoOrder(params: RawParams, now: number): Omit<AlgoOrderCommandBody, 'user'> {
  const f = new FapiFields(ALGO_ORDER_PARAMS, params);
  f.get('algoType');
  const symbol = f.get('symbol');
  const side = f.get('side');
  f.get('positionSide');
  const given = f.get('type');
  const orderType: AlgoType = ALIASES[given] ?? (given as AlgoType);
  const trailing = orderType === 'TRAILING_STOP_MARKET';
  const timeInForce = f.get('timeInForce');
  const quantity = positive('quantity', f.get('quantity'));
  const price = positive('price', f.get('price'));
  const triggerPrice = positive('triggerPrice', f.get('triggerPrice') ?? f.get('stopPrice'));
  const activatePrice = positive('activatePrice', f.get('activatePrice') ?? f.get('activationPrice'));
  const callbackRate = f.get('callbackRate');
  const closePosition = f.get('closePosition');
  const reduceOnly = f.get('reduceOnly');
  const goodTillDate = f.get('goodTillDate');

  if (!trailing && !triggerPrice) missing('triggerPrice');
  if (PRICED.includes(orderType) && !price) missing('price');
  if (trailing && !callbackRate) missing('callbackRate');
  if (timeInForce === 'GTD' && goodTillDate === undefined) missing('goodTillDate');
  if (closePosition) {
    if (!CLOSE_POSITION_TYPES.includes(orderType))
      throw new FapiError(
        'PARAMETER_NOT_REQUIRED',
        'closePosition is only for STOP_MARKET and TAKE_PROFIT_MARKET.',
      );
    if (quantity || reduceOnly)
      throw new FapiError('PARAMETER_NOT_REQUIRED', 'closePosition excludes quantity and reduceOnly.');
  } else if (!quantity) missing('quantity');
  if (callbackRate && !isValidCallbackRate(callbackRate)) bad('callbackRate must be between 0.1 and 10.');
  if (timeInForce === 'GTD' && !isGoodTillDateFarEnough(goodTillDate!, now))
    bad('goodTillDate must be at least 600 seconds in the future.');

  return {
    type: 'algo.new',
    clientAlgoId: f.get('clientAlgoId') ?? randomUUID().replace(/-/g, ''),
    symbol,
    side,
    orderType,
    ...(quantity ? { quantity: quantity.toFixed() } : {}),
    ...(price ? { price: price.toFixed() } : {}),
    ...(triggerPrice && !trailing ? { triggerPrice: triggerPrice.toFixed() } : {}),
    closePosition,
    reduceOnly,
    ...(trailing ? { callbackRate: callbackRate!.toFixed() } : {}),
    ...(trailing && activatePrice ? { activatePrice: activatePrice.toFixed() } : {}),
    timeInForce,
    ...(timeInForce === 'GTD' ? { goodTillDate } : {}),
    workingType: f.get('workingType'),
    priceProtect: f.get('priceProtect'),
  };
}
