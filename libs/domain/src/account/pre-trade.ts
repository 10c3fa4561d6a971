import type { Market } from '../markets/market';
import { orderLimits } from '../markets/order-limits';
import { parsedOnce } from '../markets/parsed-once';
import { isAboveZero, isBelowZero, Money, type MoneyValue } from '../money/money';
import type { Account, MarkPrices } from './account';
import { effectiveLeverage, orderMargin } from './margin';
import { referencePriceSource, sideSign, type AccountOrder, type OrderType, type Side } from './order';
import { reject, type PreTradeRejectReason, type AccountRejection } from './reasons';
import { ZERO } from './rounding';

/** A New Order after the gateway parsed it (symbol canonical, aliases of the type resolved). */
export interface PreTradeRequest {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: Side;
  type: OrderType;
  quantity?: Money;
  quoteOrderQty?: Money;
  price?: Money;
  stopPrice?: Money;
  reduceOnly?: boolean;
}

export interface PreTradeAccepted {
  ok: true;
  /** The order as it rests in the account, holding `frozenMargin`. */
  order: AccountOrder;
  /** Lot-floored quantity (or the quoteOrderQty conversion). */
  quantity: Money;
  referencePrice: Money;
  notional: Money;
  leverage: number;
  /** The part of the quantity that would open beyond the position: the only part margined. */
  openingQty: Money;
  frozenMargin: Money;
}

export type PreTradeResult = PreTradeAccepted | AccountRejection<PreTradeRejectReason>;

/** A market's order bounds parsed once per market object (a registry change makes a new one). */
const orderBounds = parsedOnce((market: Market) => {
  const lot = new Money(market.lotSize);
  const places = lot.decimalPlaces() ?? 0;
  return {
    lot,
    /** k when the lot is 10^-k (0.001: 3): flooring to it is then a truncation, no division. */
    lotPlaces: lot.eq(new Money(1).shiftedBy(-places)) ? places : undefined,
    minNotional: new Money(market.minOrderSizeUsd),
    maxNotional: new Money(market.maxOrderSizeUsd),
  };
});

/** floor(x / lot) x lot. */
export function floorToLot(x: Money, lotSize: MoneyValue): Money {
  return x.idiv(lotSize).times(lotSize);
}

/** quoteOrderQty to base quantity: floor(quoteOrderQty / refPrice / lot) x lot, exactly. */
export function quantityFromQuote(quoteOrderQty: Money, referencePrice: Money, lotSize: MoneyValue): Money {
  return quoteOrderQty.idiv(referencePrice.times(lotSize)).times(lotSize);
}

/**
 * The quantity of a new order on `side` that opens beyond the position. The opposite position can
 * be closed only once: resting orders on the same side already claim it first (in full, whether
 * or not they are reduceOnly), and only what is left of it makes this order a closing one.
 * reduceOnly orders never open (the engine caps them to the position), so they need no margin.
 */
export function openingQuantity(
  account: Account,
  symbol: string,
  side: Side,
  qty: Money,
  reduceOnly: boolean,
): Money {
  if (reduceOnly) return ZERO;
  const p = account.position(symbol);
  const opposite = p && sideSign(side) * (isBelowZero(p.size) ? -1 : 1) < 0 ? p.size.abs() : ZERO;
  const claimed = account.openQuantity(symbol, side);
  const closable = Money.max(ZERO, opposite.minus(claimed));
  return Money.max(ZERO, qty.minus(closable));
}

export interface OrderShape {
  ok: true;
  /** Lot-floored quantity (or the quoteOrderQty conversion). */
  quantity: Money;
  referencePrice: Money;
  notional: Money;
}

/**
 * The New Order rules that need the market and the account but no margin, in this order: tradeable
 * market, quantity/quoteOrderQty presence, the type's prices, duplicate clientOrderId, reference
 * price > 0 (or a mark price for orders priced at it), lot flooring and one lot minimum, notional
 * within the market's [min, max] order size. Trigger orders are checked with this alone.
 */
export function checkOrderShape(
  account: Account,
  market: Market,
  req: PreTradeRequest,
  marks: MarkPrices,
): OrderShape | AccountRejection<PreTradeRejectReason> {
  if (market.status !== 'TRADING') return reject('MARKET_NOT_TRADING', `${market.symbol} is not trading`);
  if (req.quantity && req.quoteOrderQty)
    return reject('CONFLICTING_PARAMETERS', 'send quantity or quoteOrderQty, not both');
  if (!req.quantity && !req.quoteOrderQty)
    return reject('MISSING_PARAMETER', 'quantity or quoteOrderQty is required');
  const source = referencePriceSource(req.type);
  if (source === 'price' && !req.price) return reject('MISSING_PARAMETER', 'price is required');
  if (req.type !== 'LIMIT' && req.type !== 'MARKET' && !req.stopPrice)
    return reject('MISSING_PARAMETER', 'stopPrice is required');
  if (account.hasActiveClientOrderId(req.clientOrderId))
    return reject('DUPLICATE_CLIENT_ORDER_ID', 'newClientOrderId is used by an active order');

  const ref = source === 'price' ? req.price : source === 'stopPrice' ? req.stopPrice : marks(market.symbol);
  if (!ref || !ref.isFinite() || !isAboveZero(ref))
    return reject(
      source === 'markPrice' ? 'NO_MARK_PRICE' : 'INVALID_PRICE',
      `reference price (${source}) must be above 0`,
    );

  const requested = req.quantity ?? req.quoteOrderQty ?? ZERO;
  if (!requested.isFinite() || !isAboveZero(requested))
    return reject('INVALID_QUANTITY', 'quantity must be above 0');
  const { lot, lotPlaces, minNotional, maxNotional } = orderBounds(market);
  const quantity = !req.quantity
    ? quantityFromQuote(requested, ref, lot)
    : lotPlaces === undefined
      ? floorToLot(req.quantity, lot)
      : req.quantity.decimalPlaces(lotPlaces, Money.ROUND_DOWN);
  if (quantity.lt(lot)) return reject('INVALID_QUANTITY', `quantity below lot size ${market.lotSize}`);

  const notional = quantity.times(ref);
  if (notional.lt(minNotional) || notional.gt(maxNotional))
    return reject(
      'INVALID_QUANTITY',
      `notional ${notional.toFixed()} outside [${market.minOrderSizeUsd}, ${market.maxOrderSizeUsd}]`,
    );
  // Within the notional bounds, only a market of very small steps gets here: the book's integers.
  const { maxQty, maxPrice } = orderLimits(market);
  if (quantity.gt(maxQty))
    return reject('INVALID_QUANTITY', `quantity above the maximum ${maxQty.toFixed()}`);
  const above = req.price?.gt(maxPrice) ? 'price' : req.stopPrice?.gt(maxPrice) ? 'stopPrice' : undefined;
  if (above) return reject('INVALID_PRICE', `${above} above the maximum ${maxPrice.toFixed()}`);
  return { ok: true, quantity, referencePrice: ref, notional };
}

/**
 * Risk stage 1: checkOrderShape, then margin within the available balance.
 * Pure: the caller adds the accepted order to the account (AccountBook.placeOrder does both).
 */
export function checkPreTrade(
  account: Account,
  market: Market,
  req: PreTradeRequest,
  marks: MarkPrices,
): PreTradeResult {
  const shape = checkOrderShape(account, market, req, marks);
  if (!shape.ok) return shape;
  const { quantity, referencePrice: ref, notional } = shape;
  const leverage = effectiveLeverage(market, account.leverage(market));
  const reduceOnly = req.reduceOnly === true;
  const openingQty = openingQuantity(account, market.symbol, req.side, quantity, reduceOnly);
  const frozenMargin = openingQty.isZero() ? ZERO : orderMargin(openingQty.times(ref), leverage);
  if (isAboveZero(frozenMargin)) {
    const available = account.availableBalance(marks);
    if (available.lt(frozenMargin))
      return reject(
        'MARGIN_INSUFFICIENT',
        `margin ${frozenMargin.toFixed()} above available balance ${available.toFixed()}`,
      );
  }
  return {
    ok: true,
    order: {
      orderId: req.orderId,
      clientOrderId: req.clientOrderId,
      symbol: market.symbol,
      side: req.side,
      type: req.type,
      reduceOnly,
      referencePrice: ref,
      quantity,
      remaining: quantity,
      leverage,
      frozen: frozenMargin,
    },
    quantity,
    referencePrice: ref,
    notional,
    leverage,
    openingQty,
    frozenMargin,
  };
}
