import { CLIENT_ORDER_ID, FapiError, NativeError, parseNewOrder, type RawParams } from '@perp/contracts';
import { type Market, type MarketRegistry, Money, normalizeSymbol, parseDecimal } from '@perp/domain';
import { objectBody } from '../../access/object-body';
import { newOrderCommand } from '../../fapi/orders/order-params';
import type { RiskCommandBody } from '../../risk/risk-client';
import { nativeFromFapi } from './native-refusal';

export type Json = Record<string, unknown>;
export type NewOrderCommand = Extract<RiskCommandBody, { type: 'order.new' }>;

/** A validated POST /api/v1/orders body. */
export interface NativeOrderInput {
  market: Market;
  side: 'BUY' | 'SELL';
  type: 'LIMIT' | 'MARKET';
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

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** A decimal given as a string (or a JSON number, which is read as its shortest decimal form). */
function decimal(v: unknown): Money | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  return parseDecimal(v);
}

/**
 * `symbol` or `market_symbol`, any alias (BTC-USD, btc_usdt ...) normalized as the domain does;
 * unknown or not trading: 400 INVALID_SYMBOL.
 */
export function orderMarket(body: Json, markets: MarketRegistry): Market {
  const given = [body.symbol, body.market_symbol].filter((v) => !absent(v));
  if (given.length === 0) throw new NativeError('INVALID_SYMBOL', 'symbol is required');
  if (given.some((v) => typeof v !== 'string'))
    throw new NativeError('INVALID_SYMBOL', 'symbol must be a string such as BTC-USD');
  const symbols = new Set((given as string[]).map(normalizeSymbol));
  if (symbols.size > 1)
    throw new NativeError('INVALID_REQUEST', 'symbol and market_symbol name different markets');
  const symbol = [...symbols][0];
  const market = markets.find(symbol);
  if (!market) throw new NativeError('INVALID_SYMBOL', `market ${symbol} not found`);
  if (market.status !== 'TRADING')
    throw new NativeError('INVALID_SYMBOL', `market ${market.symbol} is not trading (${market.status})`);
  return market;
}

/** `leverage`: an integer (or integer string) from 1 to the market's maximum, else INVALID_LEVERAGE. */
export function leverageOf(raw: unknown, market: Market): number | undefined {
  if (absent(raw)) return undefined;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > market.maxLeverage)
    throw new NativeError(
      'INVALID_LEVERAGE',
      `leverage must be an integer from 1 to ${market.maxLeverage} on ${market.symbol}`,
    );
  return n;
}

function booleanOf(raw: unknown, name: string): boolean {
  if (absent(raw) || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new NativeError('INVALID_REQUEST', `${name} must be true or false`);
}

function enumOf<T extends string>(raw: unknown, name: string, values: Record<string, T>): T | undefined {
  if (absent(raw)) return undefined;
  const v = typeof raw === 'string' ? values[raw.trim().toUpperCase()] : undefined;
  if (!v)
    throw new NativeError(
      'INVALID_REQUEST',
      `${name} must be one of ${Object.keys(values)
        .map((k) => k.toLowerCase())
        .join(', ')}`,
    );
  return v;
}

/** Validates a POST /api/v1/orders body in the order a client would fix it: market, side, type, amounts. */
export function parseNativeOrder(raw: unknown, markets: MarketRegistry): NativeOrderInput {
  const body = objectBody(raw);
  const market = orderMarket(body, markets);
  const side = enumOf(body.side, 'side', { BUY: 'BUY', SELL: 'SELL' } as const);
  if (!side) throw new NativeError('INVALID_REQUEST', 'side is required (buy or sell)');
  const type = enumOf(body.type, 'type', { LIMIT: 'LIMIT', MARKET: 'MARKET' } as const);
  if (!type) throw new NativeError('INVALID_REQUEST', 'type is required (limit or market)');

  const quantity = decimal(body.quantity);
  if (!quantity?.gt(0)) throw new NativeError('INVALID_AMOUNT', 'quantity must be a positive decimal string');

  let price: Money | undefined;
  if (type === 'LIMIT') {
    if (absent(body.price)) throw new NativeError('PRICE_REQUIRED', 'price is required for limit orders');
    price = decimal(body.price);
    if (!price?.gt(0)) throw new NativeError('INVALID_REQUEST', 'price must be a positive decimal string');
    if (!price.mod(market.tickSize).isZero())
      throw new NativeError('INVALID_REQUEST', `price must be a multiple of ${market.tickSize}`);
  } else if (!absent(body.price)) {
    throw new NativeError(
      'INVALID_REQUEST',
      'market orders take no price; use max_slippage to bound the fill',
    );
  }

  const leverage = leverageOf(body.leverage, market);
  const reduceOnly = booleanOf(body.reduce_only, 'reduce_only');
  const timeInForce = enumOf(body.time_in_force, 'time_in_force', TIME_IN_FORCE) ?? 'GTC';
  if (timeInForce === 'GTX' && type !== 'LIMIT')
    throw new NativeError('INVALID_REQUEST', 'post-only (gtx) applies to limit orders only');

  let clientOrderId: string | undefined;
  if (!absent(body.client_order_id)) {
    if (typeof body.client_order_id !== 'string' || !CLIENT_ORDER_ID.test(body.client_order_id))
      throw new NativeError(
        'INVALID_REQUEST',
        'client_order_id must be 1-36 characters of A-Z a-z 0-9 _ . -',
      );
    clientOrderId = body.client_order_id;
  }

  let maxSlippage: Money | undefined;
  if (!absent(body.max_slippage)) {
    maxSlippage = decimal(body.max_slippage);
    if (!maxSlippage || maxSlippage.lt(0) || !maxSlippage.lt(1))
      throw new NativeError(
        'INVALID_REQUEST',
        'max_slippage must be a fraction from 0 to below 1, e.g. "0.01"',
      );
  }

  return {
    market,
    side,
    type,
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

/**
 * The risk command of a validated native order, built by the FAPI New Order helpers so that both
 * surfaces send the same command (defaults, stored forms, tick check).
 */
export function nativeOrderCommand(input: NativeOrderInput, user: string, orderId: string): NewOrderCommand {
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
