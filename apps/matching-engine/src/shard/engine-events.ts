import { deterministicUuid, type EngineCommand, type EngineEvent, outputId } from '@perp/contracts';
import { type BookEvent, BookSide } from '@perp/domain';
import { fromSteps } from './conversions';
import type { EnginePartition, SymbolBook } from './engine-partition';
import type { ShardReply } from './engine-replies';
import type { OrderCommand } from './book-commands';

/** The command whose book events are translated (ADL closes run under `liquidation.place`). */
type BookCommand = OrderCommand | Extract<EngineCommand, { type: 'liquidation.place' }>;

const SIDE_NAMES = ['BUY', 'SELL'] as const;

/** The place of the input a command came from: its outputs' ids derive from it. */
export interface InputPlace {
  topic: string;
  partition: number;
  offset: string;
}

/**
 * The book's events of the last command as engine events (ids `<input place>/<event index>`,
 * trade ids derived from them), then a `book.delta` when the command changed any price level, then
 * a `book.top` when the top of the book changed. Also forgets the interned ids of orders that left
 * the book and remembers the delta and the top it published. `firstIndex` numbers the ids on
 * from events the same input already produced (a command that runs several book operations).
 */
export function bookEvents(
  p: EnginePartition,
  sb: SymbolBook,
  at: InputPlace,
  cmd: BookCommand,
  firstIndex = 0,
  replayed = false,
): EngineEvent[] {
  if (replayed) {
    settleReplayed(p, sb);
    return [];
  }
  const out: EngineEvent[] = [];
  const { time } = cmd;
  const { symbol } = sb;
  const px = (t: number): string => fromSteps(t, sb.tickSize, sb.pricePrecision);
  const qty = (l: number): string => fromSteps(l, sb.lotSize, sb.quantityPrecision);
  const ev = sb.book.events;
  for (let i = 0; i < ev.count; i++) {
    const id = outputId(at.topic, at.partition, at.offset, firstIndex + i);
    out.push(translate(p, ev.get(i), cmd, { v: 1, time, symbol, id }, px, qty));
  }
  forgetGone(p, sb);
  if (sb.book.levelChanges.count > 0) {
    const id = outputId(at.topic, at.partition, at.offset, firstIndex + out.length);
    out.push(bookDelta(sb, ev.count > 0 ? ev.seq[0] : sb.book.seq, px, qty, { time, symbol, id }));
  }
  if (topMoved(sb)) {
    const id = outputId(at.topic, at.partition, at.offset, firstIndex + out.length);
    const [bid, bidQty, ask, askQty] = sb.top as [number, number, number, number];
    out.push({
      v: 1,
      time,
      symbol,
      id,
      seq: sb.book.seq,
      type: 'book.top',
      bidPrice: px(bid),
      bidQty: qty(bidQty),
      askPrice: px(ask),
      askQty: qty(askQty),
    });
  }
  return out;
}

/**
 * A replayed command (its events are on the log already): only what `bookEvents` leaves in the
 * state, so the partition ends as a full replay would leave it, without building any event.
 */
function settleReplayed(p: EnginePartition, sb: SymbolBook): void {
  forgetGone(p, sb);
  if (sb.book.levelChanges.count > 0) sb.prevSeq = sb.book.seq;
  topMoved(sb);
}

/** Remembers the book's top (in steps); true when it is not the one last remembered. */
function topMoved(sb: SymbolBook): boolean {
  const b = sb.book;
  const bidQty = b.bestQty(BookSide.BUY);
  const askQty = b.bestQty(BookSide.SELL);
  const bid = bidQty > 0 ? b.bestPrice(BookSide.BUY) : 0;
  const ask = askQty > 0 ? b.bestPrice(BookSide.SELL) : 0;
  const t = sb.top;
  if (t.length === 4 && t[0] === bid && t[1] === bidQty && t[2] === ask && t[3] === askQty) return false;
  sb.top = [bid, bidQty, ask, askQty];
  return true;
}

/** Orders that left the book in the last command no longer need their UUID mapping. */
function forgetGone(p: EnginePartition, sb: SymbolBook): void {
  const ev = sb.book.events;
  for (let i = 0; i < ev.count; i++) {
    const e = ev.get(i);
    if (e.kind === 'REJECTED' || e.kind === 'CANCELED' || e.kind === 'EXPIRED') forget(p, sb, e.orderId);
    if (e.kind === 'FILL') {
      if (e.maker.leaves === 0) forget(p, sb, e.maker.orderId);
      if (e.taker.leaves === 0) forget(p, sb, e.taker.orderId);
    }
  }
}

function forget(p: EnginePartition, sb: SymbolBook, orderId: number): void {
  if (!sb.book.order(orderId)) p.forgetOrder(orderId);
}

type BookDelta = Extract<EngineEvent, { type: 'book.delta' }>;

/**
 * The levels the last command changed (at least one) as a `book.delta`, chained to the symbol's
 * previous delta by `prevSeq`; remembers its `seq` for the next one.
 */
function bookDelta(
  sb: SymbolBook,
  firstSeq: number,
  px: (ticks: number) => string,
  qty: (lots: number) => string,
  head: { time: number; symbol: string; id: string },
): BookDelta {
  const changes = sb.book.levelChanges;
  const bids: [string, string][] = [];
  const asks: [string, string][] = [];
  // The book lists bids best first, then asks best first: the wire order.
  for (let i = 0; i < changes.count; i++)
    (changes.side(i) === BookSide.BUY ? bids : asks).push([px(changes.price(i)), qty(changes.quantity(i))]);
  const seq = sb.book.seq;
  const prevSeq = sb.prevSeq;
  sb.prevSeq = seq;
  return {
    v: 1,
    time: head.time,
    symbol: head.symbol,
    id: head.id,
    type: 'book.delta',
    seq,
    firstSeq,
    prevSeq,
    bids,
    asks,
  };
}

type OrderEventType = 'order.accepted' | 'order.canceled' | 'order.expired' | 'order.amended';

/**
 * The fields an event about one order in the book has in common: its head, and who the order is
 * on the bus (its interned ids). A literal: the caller adds its own fields with Object.assign.
 */
function orderEvent<T extends OrderEventType>(
  p: EnginePartition,
  e: Extract<BookEvent, { orderId: number; seq: number }>,
  head: { v: 1; time: number; symbol: string; id: string },
  type: T,
) {
  const info = p.orders.get(e.orderId);
  return {
    v: head.v,
    time: head.time,
    symbol: head.symbol,
    id: head.id,
    seq: e.seq,
    type,
    orderId: info?.uuid ?? String(e.orderId),
    clientOrderId: info?.clientOrderId ?? '',
    user: info?.user ?? ('user' in e ? p.userAddress(e.user) : '') ?? '',
  };
}

type FillSide = Extract<BookEvent, { kind: 'FILL' }>['taker'];

function fillSide(p: EnginePartition, s: FillSide, qty: (lots: number) => string) {
  return {
    orderId: p.orders.get(s.orderId)?.uuid ?? String(s.orderId),
    user: p.userAddress(s.user),
    side: SIDE_NAMES[s.side],
    split: { open: qty(s.open), close: qty(s.close) },
  };
}

/**
 * One book event as the engine event it publishes: literals and Object.assign, no spread that adds
 * fields (V8 copies those property by property in its runtime; it was the engine's largest cost).
 */
function translate(
  p: EnginePartition,
  e: BookEvent,
  cmd: BookCommand,
  head: { v: 1; time: number; symbol: string; id: string },
  px: (ticks: number) => string,
  qty: (lots: number) => string,
): EngineEvent {
  const { v, time, symbol, id } = head;
  switch (e.kind) {
    case 'ACCEPTED':
      return Object.assign(orderEvent(p, e, head, 'order.accepted'), {
        side: SIDE_NAMES[e.side],
        price: px(e.price),
        quantity: qty(e.qty),
      });
    case 'REJECTED':
    case 'CANCEL_REJECTED':
    case 'AMEND_REJECTED': {
      const known = p.orders.get(e.orderId);
      return {
        v,
        time,
        symbol,
        id,
        seq: e.seq,
        type: 'order.rejected',
        orderId: known?.uuid ?? ('orderId' in cmd && cmd.orderId ? cmd.orderId : ''),
        clientOrderId:
          known?.clientOrderId ?? ('clientOrderId' in cmd && cmd.clientOrderId ? cmd.clientOrderId : ''),
        user: 'user' in cmd ? cmd.user : '',
        reason: e.reason,
      };
    }
    case 'CANCELED':
      return Object.assign(orderEvent(p, e, head, 'order.canceled'), { remaining: qty(e.qty) });
    case 'EXPIRED':
      return Object.assign(orderEvent(p, e, head, 'order.expired'), {
        remaining: qty(e.qty),
        reason: e.reason,
      });
    case 'AMENDED':
      return Object.assign(orderEvent(p, e, head, 'order.amended'), {
        price: px(e.price),
        quantity: qty(e.qty),
      });
    case 'FILL':
      return {
        v,
        time,
        symbol,
        id,
        seq: e.seq,
        type: 'trade',
        tradeId: deterministicUuid(id),
        price: px(e.price),
        qty: qty(e.qty),
        maker: fillSide(p, e.maker, qty),
        taker: fillSide(p, e.taker, qty),
      };
    case 'MARKET_STATE':
      return { v, time, symbol, id, seq: e.seq, type: 'market.status', status: e.state };
  }
}

/** The outcome of a command forwarded by risk, as the last of its events (`index` after them). */
export function commandResult(
  p: EnginePartition,
  at: InputPlace,
  cmd: OrderCommand,
  reply: ShardReply,
  index: number,
): EngineEvent {
  const book = p.books.get(cmd.symbol)?.book;
  // Built as a literal, optional fields set after (a spread adding fields is V8's slow path).
  const result: Extract<EngineEvent, { type: 'command.result' }> = {
    v: 1,
    id: outputId(at.topic, at.partition, at.offset, index),
    time: cmd.time,
    type: 'command.result',
    symbol: cmd.symbol,
    seq: book?.seq ?? 0,
    user: 'user' in cmd ? cmd.user : '',
    command: cmd.type as 'order.place' | 'order.cancel' | 'order.cancelAll' | 'order.amend',
    ok: reply.ok,
  };
  if ('orderId' in cmd && cmd.orderId !== undefined) result.orderId = cmd.orderId;
  if ('replyTo' in cmd && cmd.replyTo) result.replyTo = cmd.replyTo;
  if (reply.ok) result.result = reply.result;
  else result.error = reply.error;
  return result;
}
