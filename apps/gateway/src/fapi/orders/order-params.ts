import { FapiError, fapiIssue, fapiParam as P, type NewOrderRequest, type RawParams } from '@perp/contracts';
import { z } from 'zod';
import { type Market, type Money } from '@perp/domain';
import type { RiskCommandBody } from '../../risk/risk-client';

export const MAX_BATCH_ORDERS = 5;
export const MAX_BATCH_CANCELS = 10;

/** Decimals of a tick size that is a power of ten at most 1 ("1", "0.1", "0.010"), else undefined. */
const tickDecimals = new Map<string, number | undefined>();
function decimalsOfTick(tickSize: string): number | undefined {
  if (tickDecimals.has(tickSize)) return tickDecimals.get(tickSize);
  const fraction = /^0\.(0*)10*$/.exec(tickSize);
  const decimals = fraction ? fraction[1]!.length + 1 : /^1(\.0*)?$/.test(tickSize) ? 0 : undefined;
  tickDecimals.set(tickSize, decimals);
  return decimals;
}

/**
 * Price filter: a price off the market's tick grid is a filter failure (-1013), as on Binance. On a
 * power-of-ten tick that is a price with more decimals than the tick (no division on each order).
 */
export function checkTick(market: Market, name: string, price?: Money): void {
  if (!price) return;
  const decimals = decimalsOfTick(market.tickSize);
  const onGrid =
    decimals === undefined ? price.mod(market.tickSize).isZero() : price.decimalPlaces()! <= decimals;
  if (!onGrid)
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
  // A literal, optional fields set after (spreading them in is V8's slow path).
  const cmd: Extract<RiskCommandBody, { type: 'order.new' }> = {
    type: 'order.new',
    orderId,
    clientOrderId: req.clientOrderId,
    user,
    symbol: market.symbol,
    side: req.side,
    orderType: req.type,
    timeInForce: req.timeInForce,
    reduceOnly: req.reduceOnly,
    workingType: req.workingType,
    priceProtect: req.priceProtect,
    selfTradePreventionMode: req.selfTradePreventionMode,
  };
  if (req.quantity) cmd.quantity = req.quantity.toFixed();
  if (req.quoteOrderQty) cmd.quoteOrderQty = req.quoteOrderQty.toFixed();
  if (req.price) cmd.price = req.price.toFixed();
  if (req.stopPrice) cmd.stopPrice = req.stopPrice.toFixed();
  return cmd;
}

/** Anything that reads the order reference parameters by their schemas. */
interface OrderRefFields {
  get(name: 'orderId' | 'origClientOrderId'): string | undefined;
}

/** orderId wins when both are sent; neither is -1102. */
export function orderRef(f: OrderRefFields): { orderId: string } | { clientOrderId: string } {
  const orderId = f.get('orderId');
  if (orderId !== undefined) return { orderId };
  const clientOrderId = f.get('origClientOrderId');
  if (clientOrderId !== undefined) return { clientOrderId };
  throw new FapiError(
    'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
    "Param 'orderId' or 'origClientOrderId' must be sent, but both were empty/null.",
  );
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
export const positiveDecimal = (description: string) =>
  P.decimal(description).refine(
    (v) => v.gt(0),
    fapiIssue('INVALID_QUANTITY', "Parameter '{name}' must be above zero."),
  );

/**
 * A list of 1 to `max` entries, as text: a JSON array, or for `bareIds` also `[id1,id2]` with the
 * ids unquoted, as ccxt writes `orderidlist` (Binance's order ids are numbers, so its JSON needs no
 * quotes; ours are UUIDs). -1102 when missing, not such a list or out of bounds.
 */
export const jsonArrayParam = (description: string, max: number, bareIds = false) =>
  z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        const ids = bareIds ? bareIdList(raw) : undefined;
        if (ids) return ids;
        ctx.issues.push({
          code: 'custom',
          input: raw,
          message: fapiIssue('MANDATORY_PARAM_EMPTY_OR_MALFORMED', "Parameter '{name}' is not valid JSON."),
        });
        return z.NEVER;
      }
    })
    .refine(
      (v) => Array.isArray(v) && v.length > 0 && v.length <= max,
      fapiIssue(
        'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
        `Parameter '{name}' must be a JSON array of 1 to ${max} entries.`,
      ),
    )
    .transform((v) => v as unknown[])
    .meta({ description, contentMediaType: 'application/json' });

const BARE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** `[a,b]` with unquoted ids (no spaces, quotes or nesting), else undefined. */
function bareIdList(raw: string): string[] | undefined {
  if (!raw.startsWith('[') || !raw.endsWith(']')) return undefined;
  const ids = raw.slice(1, -1).split(',');
  return ids.every((id) => BARE_ID.test(id)) ? ids : undefined;
}
