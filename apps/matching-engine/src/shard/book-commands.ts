import type { EngineCommand, EngineEvent } from '@perp/contracts';
import {
  BookMarketState,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  type MarketRegistry,
  type OrderBook,
} from '@perp/domain';
import { toSteps } from './conversions';
import { bookEvents, type InputPlace } from './engine-events';
import { createSymbolBook, type EnginePartition, type SymbolBook } from './engine-partition';
import {
  BOOK_REFUSALS,
  bookRefusal,
  orderView,
  placeReply,
  refusal,
  type ShardReply,
} from './engine-replies';

/** The engine commands a book applies (market.add is the market admin's). */
export type OrderCommand = Extract<
  EngineCommand,
  { type: 'order.place' | 'order.cancel' | 'order.cancelAll' | 'order.amend' | 'market.status' }
>;

/** What one command produced: the events to publish, in order, and the answer. */
export interface CommandOutput {
  events: EngineEvent[];
  reply: ShardReply;
  /** A replay of an input whose events and reply an earlier owner published: none are built. */
  replayed?: boolean;
}

/** What a replayed input answers: nobody (its reply went out with its events before the commit). */
const REPLAYED: ShardReply = { ok: true, result: undefined };

/**
 * The symbol's book in this partition, created from the market on first use, in the status the
 * market first had: every later change is a `market.status` command on this log, applied to the
 * book in its place (the live registry's status is ahead of a replay and would refuse the orders
 * the first run took before a pause). A market listed at run time has its book from its
 * `market.add` (EngineShard.listMarket); the live list's first state serves only partitions
 * whose log began before listings made books.
 */
export function bookFor(p: EnginePartition, markets: MarketRegistry, symbol: string): SymbolBook | undefined {
  const existing = p.books.get(symbol);
  if (existing) return existing;
  const market = markets.initial(symbol);
  if (!market) return undefined;
  const b = createSymbolBook(market);
  p.books.set(market.symbol, b);
  return b;
}

/**
 * Applies one command to its symbol's book: decimal strings become ticks and lots, UUIDs and
 * addresses interned ids; the book's events become engine events with ids from `at`.
 */
export function applyBookCommand(
  p: EnginePartition,
  markets: MarketRegistry,
  at: InputPlace,
  cmd: OrderCommand,
  replayed = false,
): CommandOutput {
  const sb = bookFor(p, markets, cmd.symbol);
  if (!sb) return { events: [], reply: refusal('INVALID_SYMBOL', `no market ${cmd.symbol}`) };
  const { book } = sb;
  let reply: ShardReply;
  switch (cmd.type) {
    case 'order.place': {
      if (p.orderIds.has(cmd.orderId))
        return { events: [], reply: refusal('DUPLICATE_ORDER_ID', BOOK_REFUSALS.DUPLICATE_ORDER_ID) };
      const id = p.internOrder({ uuid: cmd.orderId, clientOrderId: cmd.clientOrderId, user: cmd.user });
      const type =
        cmd.orderType === 'MARKET'
          ? BookOrderType.MARKET
          : cmd.orderType === 'LIMIT'
            ? BookOrderType.LIMIT
            : -1;
      book.place({
        orderId: id,
        user: p.userId(cmd.user),
        side: BookSide[cmd.side],
        type: type as BookOrderType,
        timeInForce: BookTimeInForce[cmd.timeInForce],
        price: cmd.price === undefined ? 0 : toSteps(cmd.price, sb.tickSize),
        quantity: toSteps(cmd.quantity, sb.lotSize),
        reduceOnly: cmd.reduceOnly,
        stp: BookStpMode[cmd.selfTradePreventionMode],
        clientOrderId: cmd.clientOrderId,
      });
      reply = replayed ? REPLAYED : placeReply(sb, id, cmd, markets);
      break;
    }
    case 'order.cancel': {
      const user = p.userIds.get(cmd.user) ?? 0;
      let ok: boolean;
      let before: ReturnType<OrderBook['order']>;
      let id: number | undefined;
      if (cmd.orderId !== undefined) {
        id = p.orderIds.get(cmd.orderId) ?? -1;
        before = book.order(id);
        ok = book.cancel(user, id);
      } else {
        id = book.orderIdOf(user, cmd.clientOrderId ?? '');
        before = id === undefined ? undefined : book.order(id);
        ok = book.cancelByClientId(user, cmd.clientOrderId ?? '');
      }
      reply =
        ok && before && id !== undefined
          ? { ok: true, result: orderView(p, sb, id, before, 'CANCELED') }
          : refusal('UNKNOWN_ORDER', BOOK_REFUSALS.UNKNOWN_ORDER);
      break;
    }
    case 'order.cancelAll': {
      const user = p.userIds.get(cmd.user);
      const n = user === undefined ? 0 : book.cancelAll(user);
      reply = { ok: true, result: { symbol: sb.symbol, canceled: n } };
      break;
    }
    case 'order.amend': {
      const user = p.userIds.get(cmd.user) ?? 0;
      const id = p.orderIds.get(cmd.orderId) ?? -1;
      const ok = book.amend(user, id, toSteps(cmd.price, sb.tickSize), toSteps(cmd.quantity, sb.lotSize));
      const ev = book.events.count > 0 ? book.events.get(0) : undefined;
      reply = ok
        ? {
            ok: true,
            result: { orderId: cmd.orderId, symbol: sb.symbol, price: cmd.price, quantity: cmd.quantity },
          }
        : ev?.kind === 'AMEND_REJECTED'
          ? bookRefusal(sb, ev, markets)
          : refusal('UNKNOWN_ORDER', BOOK_REFUSALS.UNKNOWN_ORDER);
      break;
    }
    case 'market.status':
      book.setState(BookMarketState[cmd.status]);
      reply = { ok: true, result: { symbol: sb.symbol, status: cmd.status } };
      break;
  }
  return { events: bookEvents(p, sb, at, cmd, 0, replayed), reply, replayed };
}
