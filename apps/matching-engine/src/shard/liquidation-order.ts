import { type EngineCommand, type EngineEvent, outputId } from '@perp/contracts';
import {
  averagePrice,
  BookOrderType,
  BookSide,
  BookStpMode,
  BookTimeInForce,
  type MarketRegistry,
  Money,
} from '@perp/domain';
import { bookFor, type CommandOutput } from './book-commands';
import { fromSteps, toSteps } from './conversions';
import { bookEvents, type InputPlace } from './engine-events';
import type { EnginePartition, SymbolBook } from './engine-partition';
import { refusal } from './engine-replies';

export type LiquidationCommand = Extract<EngineCommand, { type: 'liquidation.place' }>;

/** What the remainder of a liquidation (the part the book did not fill) is handed to. */
export interface LiquidationRemainderInput {
  p: EnginePartition;
  sb: SymbolBook;
  at: InputPlace;
  cmd: LiquidationCommand;
  /** Lots left to close: the order's quantity, capped by the user's position, less the book fills. */
  remainingLots: number;
  /** The id of the `i`th event the hook emits (they follow the book's events). */
  eventId: (i: number) => string;
  /** The index of the first event the hook emits among the input's outputs (`eventId(0)`'s). */
  firstIndex: number;
}

/** Closes what it can of the remainder (ADL) and says how many lots, with the events it produced. */
export type LiquidationRemainder = (input: LiquidationRemainderInput) => {
  lots: number;
  events: EngineEvent[];
};

/** No ADL yet: the remainder stays open (`unfilledQty`). */
export const LEAVE_REMAINDER: LiquidationRemainder = () => ({ lots: 0, events: [] });

/**
 * `liquidation.place`: the user's liquidation order, an IOC limit at `limitPrice` or better,
 * reduce-only (it can only close; the book caps it to the position), without self-trade prevention
 * (the risk shard canceled the user's orders first) and without fees (risk charges the clearance
 * fee). Its trades carry kind LIQUIDATION, the liquidationId as the taker's order id. Then the
 * `remainder` hook closes what the book left (ADL), and `liquidation.done` ends the command.
 */
export function applyLiquidationOrder(
  p: EnginePartition,
  markets: MarketRegistry,
  at: InputPlace,
  cmd: LiquidationCommand,
  remainder: LiquidationRemainder = LEAVE_REMAINDER,
): CommandOutput {
  const sb = bookFor(p, markets, cmd.symbol);
  if (!sb) return { events: [], reply: refusal('INVALID_SYMBOL', `no market ${cmd.symbol}`) };
  if (p.orderIds.has(cmd.liquidationId))
    return { events: [], reply: refusal('DUPLICATE_ORDER_ID', 'liquidation id already in use') };
  const { book } = sb;
  const user = p.userId(cmd.user);
  const side = BookSide[cmd.side];
  const id = p.internOrder({ uuid: cmd.liquidationId, clientOrderId: '', user: cmd.user });
  book.place({
    orderId: id,
    user,
    side,
    type: BookOrderType.LIMIT,
    timeInForce: BookTimeInForce.IOC,
    price: toSteps(cmd.limitPrice, sb.tickSize),
    quantity: toSteps(cmd.quantity, sb.lotSize),
    reduceOnly: true,
    stp: BookStpMode.NONE,
  });
  let filled = 0;
  let quote = new Money(0);
  for (let i = 0; i < book.events.count; i++) {
    const e = book.events.get(i);
    if (e.kind !== 'FILL') continue;
    filled += e.qty;
    quote = quote.plus(new Money(e.price).times(e.qty));
  }
  const events = bookEvents(p, sb, at, cmd).map((e) =>
    e.type === 'trade' && e.taker.orderId === cmd.liquidationId ? { ...e, kind: 'LIQUIDATION' as const } : e,
  );
  // The book forgets an order once it left; the id stays taken for the ADL trades that follow.
  const requested = toSteps(cmd.quantity, sb.lotSize);
  const position = book.position(user);
  const closable = side === BookSide.SELL ? Math.max(position, 0) : Math.max(-position, 0);
  const remainingLots = Number.isSafeInteger(requested)
    ? Math.max(0, Math.min(requested - filled, closable))
    : 0;
  const eventId = (i: number) => outputId(at.topic, at.partition, at.offset, events.length + i);
  const adl =
    remainingLots > 0
      ? remainder({ p, sb, at, cmd, remainingLots, eventId, firstIndex: events.length })
      : { lots: 0, events: [] };
  events.push(...adl.events);
  const qty = (lots: number) => fromSteps(lots, sb.lotSize, sb.quantityPrecision);
  const avgPrice = filled > 0 ? averagePrice(quote.times(sb.tickSize), new Money(filled)).toFixed() : '0';
  const unfilled = new Money(cmd.quantity).minus(qty(filled)).minus(qty(adl.lots));
  const done: EngineEvent = {
    v: 1,
    id: outputId(at.topic, at.partition, at.offset, events.length),
    time: cmd.time,
    type: 'liquidation.done',
    symbol: sb.symbol,
    seq: book.seq,
    liquidationId: cmd.liquidationId,
    user: cmd.user,
    side: cmd.side,
    quantity: cmd.quantity,
    filledQty: qty(filled),
    avgPrice,
    adlQty: qty(adl.lots),
    unfilledQty: Money.max(unfilled, 0).toFixed(),
    bankruptcyPrice: cmd.bankruptcyPrice,
  };
  events.push(done);
  return {
    events,
    reply: {
      ok: true,
      result: { liquidationId: cmd.liquidationId, filledQty: done.filledQty, adlQty: done.adlQty },
    },
  };
}
