import type { OiCapDetails, OutcomeError, OutcomeReason } from '@perp/contracts';
import {
  type BookEvent,
  type BookRejectReason,
  BookSide,
  type Market,
  type MarketRegistry,
} from '@perp/domain';
import { fromSteps, stepsValue, wholeSteps } from './conversions';
import type { EnginePartition, SymbolBook } from './engine-partition';

/** What the engine answers a command with: its result, or a neutral refusal. */
export type ShardReply = { ok: true; result: unknown } | { ok: false; error: OutcomeError };

export const ALREADY_APPLIED: ShardReply = {
  ok: false,
  error: { reason: 'ALREADY_APPLIED', msg: 'already applied' },
};

export function refusal(reason: OutcomeReason, msg: string): ShardReply {
  return { ok: false, error: { reason, msg } };
}

/** What each refusal of the book means, for the reply's message. */
export const BOOK_REFUSALS: Record<BookRejectReason, string> = {
  INVALID_ORDER: 'side, type, time in force or self-trade mode not valid for this order',
  INVALID_QUANTITY: 'quantity must be a whole number of lots up to the maximum order size',
  INVALID_PRICE: 'price must be a whole number of ticks within the book range',
  DUPLICATE_ORDER_ID: 'order id already in use',
  DUPLICATE_CLIENT_ORDER_ID: 'clientOrderId is used by an open order',
  MARKET_NOT_TRADING: 'market is not trading',
  POST_ONLY_WOULD_TAKE: 'post-only order would take liquidity',
  REDUCE_ONLY_REJECTED: 'reduce-only order has no position left to reduce',
  OI_CAP_EXCEEDED: 'order would raise open interest above its cap',
  UNKNOWN_ORDER: 'unknown order',
};

type BookRefusalEvent = Extract<BookEvent, { kind: 'REJECTED' | 'CANCEL_REJECTED' | 'AMEND_REJECTED' }>;

/**
 * A refusal of the book as a reply. An open-interest refusal says which cap and by how much, read
 * from the book as it refused (nothing changed since).
 */
export function bookRefusal(sb: SymbolBook, e: BookRefusalEvent, markets: MarketRegistry): ShardReply {
  const error: OutcomeError = { reason: e.reason, msg: BOOK_REFUSALS[e.reason] };
  const market = e.reason === 'OI_CAP_EXCEEDED' ? markets.find(sb.symbol) : undefined;
  if (market) error.details = oiCapDetails(sb, market, e);
  return { ok: false, error };
}

/**
 * Which cap an opening order hits: the book checks both sides with the order's quantity that does
 * not close the user's own position (long and short interest move together in a perpetual). The
 * order's own side is reported when it is over, else the other side (caps may differ).
 */
function oiCapDetails(sb: SymbolBook, market: Market, e: BookRefusalEvent): OiCapDetails {
  const position = sb.book.position(e.user);
  const closable = e.side === BookSide.BUY ? Math.max(-position, 0) : Math.max(position, 0);
  const delta = e.qty - closable;
  const oi = { long: sb.book.longOi, short: sb.book.shortOi };
  const caps = {
    long: wholeSteps(market.maxLongOi, sb.lotSize),
    short: wholeSteps(market.maxShortOi, sb.lotSize),
  };
  const own = e.side === BookSide.BUY ? 'long' : 'short';
  const other = own === 'long' ? 'short' : 'long';
  const over = (s: 'long' | 'short') => oi[s] + delta > caps[s];
  const side = over(own) || !over(other) ? own : other;
  return {
    side,
    current: stepsValue(oi[side], sb.lotSize),
    cap: stepsValue(caps[side], sb.lotSize),
    requestedDelta: stepsValue(delta, sb.lotSize),
  };
}

export interface PlacedOrder {
  orderId: string;
  clientOrderId: string;
  side: 'BUY' | 'SELL';
  orderType: string;
  timeInForce: string;
  price?: string;
  quantity: string;
}

/** The answer to a place, from the book's events of it: refused, or its status and executed quantity. */
export function placeReply(
  sb: SymbolBook,
  id: number,
  cmd: PlacedOrder,
  markets: MarketRegistry,
): ShardReply {
  const ev = sb.book.events;
  let executed = 0;
  let status = 'NEW';
  for (let i = 0; i < ev.count; i++) {
    const e = ev.get(i);
    if (e.kind === 'REJECTED') return bookRefusal(sb, e, markets);
    if (e.kind === 'FILL') executed += e.qty;
    if (e.kind === 'EXPIRED' && e.orderId === id) status = 'EXPIRED';
  }
  const open = sb.book.order(id);
  if (status !== 'EXPIRED') status = open ? (executed > 0 ? 'PARTIALLY_FILLED' : 'NEW') : 'FILLED';
  return {
    ok: true,
    result: {
      orderId: cmd.orderId,
      clientOrderId: cmd.clientOrderId,
      symbol: sb.symbol,
      side: cmd.side,
      type: cmd.orderType,
      timeInForce: cmd.timeInForce,
      price: cmd.price ?? '0',
      origQty: cmd.quantity,
      executedQty: fromSteps(executed, sb.lotSize, sb.quantityPrecision),
      status,
    },
  };
}

const SIDE_NAMES = ['BUY', 'SELL'] as const;

/** A resting order as a reply (cancel): ids, side, price and the quantity that was still open. */
export function orderView(
  p: EnginePartition,
  sb: SymbolBook,
  id: number,
  o: { side: number; price: number; quantity: number },
  status: string,
): Record<string, unknown> {
  const info = p.orders.get(id);
  return {
    orderId: info?.uuid,
    clientOrderId: info?.clientOrderId,
    symbol: sb.symbol,
    side: SIDE_NAMES[o.side],
    price: fromSteps(o.price, sb.tickSize, sb.pricePrecision),
    remaining: fromSteps(o.quantity, sb.lotSize, sb.quantityPrecision),
    status,
  };
}
