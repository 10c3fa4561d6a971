import type { BusMessage } from '@perp/bus';
import {
  type EngineCommand,
  type OrderRecord,
  type OutcomeReason,
  outputId,
  type RiskCommand,
} from '@perp/contracts';
import {
  type Market,
  type MarketRegistry,
  type Money,
  parseDecimal,
  type PreTradeRequest,
  type PreTradeResult,
} from '@perp/domain';
import { isOpen, recordClosed } from '../order-records';
import type { RiskPartition } from '../risk-partition';
import { finishAlgoOf } from './algo-records';
import type { Output, ReplyBody } from '../turn-output';

/** What a command handler works on: the partition's state, the input's place, its output. */
export interface RiskContext {
  readonly p: RiskPartition;
  /** The input: its place derives output ids and the origin the engine dedupes by. */
  readonly m: BusMessage;
  readonly out: Output;
  /** The partition's markets: statuses as its log has them (PartitionMarkets). */
  readonly markets: Pick<MarketRegistry, 'find'>;
  /** The settlement asset (commission asset of trades). */
  readonly asset: string;
}

export type RiskCommandOf<K extends RiskCommand['type']> = Extract<RiskCommand, { type: K }>;
export type RiskHandler<K extends RiskCommand['type']> = (ctx: RiskContext, cmd: RiskCommandOf<K>) => void;
export type NewOrderCommand = RiskCommandOf<'order.new'>;

/** The market of an order command if it is TRADING; otherwise the reply is its refusal. */
export function tradingMarket(ctx: RiskContext, symbol: string): Market | undefined {
  const market = ctx.markets.find(symbol);
  if (market?.status === 'TRADING') return market;
  ctx.out.reply = market
    ? refusal('MARKET_NOT_TRADING', `${market.symbol} is not trading`)
    : refusal('INVALID_SYMBOL', `no market ${symbol}`);
  return undefined;
}

/** A refusal as the reply: a neutral reason (the domain's reasons are among them) and a message. */
export function refusal(reason: OutcomeReason, msg: string): ReplyBody {
  return { ok: false, error: { reason, msg } };
}

export function optionalMoney(v?: string): Money | undefined {
  return v === undefined ? undefined : parseDecimal(v);
}

/** A New Order command as the domain's pre-trade request. */
export function preTradeRequest(cmd: NewOrderCommand): PreTradeRequest {
  return {
    orderId: cmd.orderId,
    clientOrderId: cmd.clientOrderId,
    symbol: cmd.symbol,
    side: cmd.side,
    type: cmd.orderType,
    quantity: optionalMoney(cmd.quantity),
    quoteOrderQty: optionalMoney(cmd.quoteOrderQty),
    price: optionalMoney(cmd.price),
    stopPrice: optionalMoney(cmd.stopPrice),
    reduceOnly: cmd.reduceOnly,
  };
}

/** Where a forwarded command came from: the input's place and, when it forwards several, which one. */
interface ForwardOrigin {
  partition: number;
  offset: string;
  index?: number;
}

/** The fields every engine command forwarded by an input shares. */
export interface ForwardEnvelope {
  id: string;
  v: 1;
  time: number;
  origin: ForwardOrigin;
  replyTo?: NonNullable<Output['replyTo']>;
}

/**
 * The fields every engine command forwarded by an input shares: id and origin from the input's
 * place (`index` when one input forwards several), and whom the engine's command.result answers.
 * Built as literals, optional fields set after: a command is `Object.assign(forwarded(…), body)`,
 * not a spread of the envelope with new fields (V8's slow path, about a microsecond each).
 */
export function forwarded(ctx: RiskContext, time: number, index?: number): ForwardEnvelope {
  const { m, out } = ctx;
  const origin: ForwardOrigin = { partition: m.partition, offset: m.offset };
  if (index !== undefined) origin.index = index;
  const envelope: ForwardEnvelope = {
    id: outputId(m.topic, m.partition, m.offset, index ?? 0),
    v: 1,
    time,
    origin,
  };
  if (out.replyTo) envelope.replyTo = out.replyTo;
  return envelope;
}

/**
 * Pre-trade (margin frozen) and, when accepted, the order.place command for the engine: the
 * `index`th command this input forwards, which the engine dedupes by with the input's place.
 */
export function forwardOrder(ctx: RiskContext, cmd: NewOrderCommand, index: number): PreTradeResult {
  const r = ctx.p.book.placeOrder(cmd.user, preTradeRequest(cmd));
  // A replayed input's engine command is on the log already (Output.recording).
  if (!r.ok || !ctx.out.recording) return r;
  const place: Extract<EngineCommand, { type: 'order.place' }> = Object.assign(
    forwarded(ctx, cmd.time, index),
    {
      type: 'order.place' as const,
      orderId: cmd.orderId,
      clientOrderId: cmd.clientOrderId,
      user: cmd.user,
      symbol: cmd.symbol,
      side: cmd.side,
      orderType: cmd.orderType,
      timeInForce: cmd.timeInForce,
      quantity: r.quantity.toFixed(),
      reduceOnly: cmd.reduceOnly,
      workingType: cmd.workingType,
      priceProtect: cmd.priceProtect,
      selfTradePreventionMode: cmd.selfTradePreventionMode,
      frozenMargin: r.frozenMargin.toFixed(),
    },
  );
  if (cmd.price !== undefined) place.price = cmd.price;
  ctx.out.engineCommands.push(place);
  return r;
}

/** The user's wallet and frozen margin as an account event; their projection is rewritten. */
export function balanceEvent(ctx: RiskContext, user: string): void {
  ctx.out.users.add(user);
  if (!ctx.out.recording) return;
  const a = ctx.p.book.account(user);
  ctx.out.accountEvents.push({
    type: 'balance',
    user,
    asset: 'USDT',
    walletBalance: a.walletBalance.toFixed(),
    frozen: a.frozenMargin().toFixed(),
  });
}

/** Releases the order's margin and closes its record (CANCELED or REJECTED) if still open. */
export function closeOrder(
  ctx: RiskContext,
  user: string,
  orderId: string,
  status: 'CANCELED' | 'REJECTED',
  time: number,
): OrderRecord | undefined {
  const { p, out } = ctx;
  p.book.releaseOrder(user, orderId);
  const rec = p.openOrder(orderId);
  let closed: OrderRecord | undefined;
  if (rec && isOpen(rec)) {
    closed = recordClosed(rec, status, time);
    p.close(closed);
    finishAlgoOf(ctx, orderId, time, status === 'REJECTED');
    out.closed.push(closed);
    out.accountEvents.push({ type: 'order', user, order: closed });
  }
  balanceEvent(ctx, user);
  return closed;
}
