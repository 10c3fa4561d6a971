import { type AlgoOrderRecord, deterministicUuid } from '@perp/contracts';
import {
  checkOrderShape,
  isTriggered,
  isValidCallbackRate,
  type Market,
  type Money,
  trackTrailingStop,
  triggerDirection,
  type TriggerOrderType,
} from '@perp/domain';
import type { DerivedOrderCommand, LiveAlgo } from '../algo-book';
import { algoEvent, moveAlgo } from './algo-records';
import {
  optionalMoney,
  refusal,
  type RiskCommandOf,
  type RiskContext,
  type RiskHandler,
  tradingMarket,
} from './risk-context';

type NewAlgoCommand = RiskCommandOf<'algo.new'>;

/**
 * New algo order: checked like a trigger order at its reference price (triggerPrice, or the
 * activation price of a trailing stop, which defaults to the mark), counted against the market's
 * maxOpenOrders and maxAlgoOrders, then NEW: waiting in the trigger book, or following the mark.
 */
export const newAlgoOrder: RiskHandler<'algo.new'> = (ctx, cmd) => {
  const { p, m, out } = ctx;
  const market = tradingMarket(ctx, cmd.symbol);
  if (!market) return;
  const refused = limitRefusal(ctx, cmd, market);
  if (refused) return void (out.reply = refused);
  const algoId = Number(m.offset) * 1024 + m.partition;
  const live = liveAlgo(ctx, cmd, market, algoId);
  if ('ok' in live) return void (out.reply = live);
  p.algos.put(live);
  if (!live.trailing)
    p.triggers.add({
      orderId: live.command.orderId,
      symbol: market.symbol,
      direction: triggerDirection(live.command.orderType, cmd.side),
      stopPrice: optionalMoney(live.command.stopPrice)!,
      seq: Number(m.offset),
      user: cmd.user,
      command: live.command,
      algoId,
    });
  algoEvent(ctx, live.record);
  out.reply = { ok: true, result: live.record };
};

/** Cancel one algo order: NEW becomes CANCELED; CANCELED again succeeds; any other state is done. */
export const cancelAlgoOrder: RiskHandler<'algo.cancel'> = (ctx, cmd) => {
  const { p, out } = ctx;
  const rec = p.algos.find(cmd.user, cmd.algoId, cmd.clientAlgoId);
  if (!rec) return void (out.reply = refusal('ORDER_NOT_FOUND', 'Unknown order sent.'));
  if (rec.algoStatus === 'CANCELED') return void (out.reply = { ok: true, result: rec });
  const live = p.algos.get(rec.algoId);
  const canceled = live && cancelLive(ctx, live, cmd.time);
  out.reply = canceled
    ? { ok: true, result: canceled }
    : refusal('ALGO_ORDER_DONE', `algo order ${rec.algoId} is ${rec.algoStatus}: nothing to cancel`);
};

/** Cancel every NEW algo order of the user on the symbol. */
export const cancelAllAlgoOrders: RiskHandler<'algo.cancelAll'> = (ctx, cmd) => {
  const { p, out } = ctx;
  for (const r of p.algos.openOf(cmd.user, cmd.symbol)) cancelLive(ctx, p.algos.get(r.algoId)!, cmd.time);
  out.reply = { ok: true, result: {} };
};

function cancelLive(ctx: RiskContext, live: LiveAlgo, time: number): AlgoOrderRecord | undefined {
  const r = moveAlgo(ctx, live, 'CANCEL', time);
  if (r) ctx.p.triggers.remove(live.command.orderId);
  return r;
}

/** The market's limits (O(1) counts) and a client id already used by an open algo order. */
function limitRefusal(ctx: RiskContext, cmd: NewAlgoCommand, market: Market) {
  const { p } = ctx;
  if (p.openOrderCount(cmd.user, market.symbol) >= market.maxOpenOrders)
    return refusal('MAX_OPEN_ORDERS', `Reach max open order limit (${market.maxOpenOrders}).`);
  if (p.waitingTriggerCount(cmd.user, market.symbol) >= market.maxAlgoOrders)
    return refusal('MAX_ALGO_ORDERS', `Reach max stop order limit (${market.maxAlgoOrders}).`);
  const same = p.algos.find(cmd.user, undefined, cmd.clientAlgoId);
  if (same?.algoStatus === 'NEW')
    return refusal('DUPLICATE_CLIENT_ORDER_ID', 'clientAlgoId is used by an open algo order');
  return undefined;
}

/** The NEW algo order of a command (record, derived order, trailing state), or its refusal. */
function liveAlgo(ctx: RiskContext, cmd: NewAlgoCommand, market: Market, algoId: number) {
  const { p } = ctx;
  const mark = p.book.markPrices(market.symbol);
  if (!mark?.gt(0)) return refusal('NO_MARK_PRICE', `no mark price for ${market.symbol}`);
  const trailing = cmd.orderType === 'TRAILING_STOP_MARKET';
  const callbackRate = optionalMoney(cmd.callbackRate);
  if (trailing && !(callbackRate && isValidCallbackRate(callbackRate)))
    return refusal('INVALID_ORDER', 'callbackRate must be between 0.1 and 10');
  if (cmd.timeInForce === 'GTD' && cmd.goodTillDate === undefined)
    return refusal('MISSING_PARAMETER', 'goodTillDate is required with GTD');
  const reference = trailing ? (optionalMoney(cmd.activatePrice) ?? mark) : optionalMoney(cmd.triggerPrice);
  if (!reference?.gt(0)) return refusal('MISSING_PARAMETER', 'triggerPrice is required');
  const orderType: TriggerOrderType =
    cmd.orderType === 'TRAILING_STOP_MARKET' ? 'STOP_MARKET' : cmd.orderType;
  const command: DerivedOrderCommand = {
    id: cmd.id,
    v: 1,
    time: cmd.time,
    type: 'order.new',
    orderId: deterministicUuid(`algo/${algoId}`),
    clientOrderId: `algo-${algoId}`,
    user: cmd.user,
    symbol: market.symbol,
    side: cmd.side,
    orderType,
    timeInForce: 'GTC',
    ...(cmd.quantity !== undefined ? { quantity: cmd.quantity } : {}),
    ...(cmd.price !== undefined ? { price: cmd.price } : {}),
    stopPrice: reference.toFixed(),
    reduceOnly: cmd.reduceOnly || cmd.closePosition,
    workingType: cmd.workingType,
    priceProtect: cmd.priceProtect,
    selfTradePreventionMode: 'EXPIRE_TAKER',
  };
  const quantity = checkAtReference(ctx, cmd, market, command, reference, mark, trailing);
  if ('ok' in quantity) return quantity;
  const record = algoRecord(cmd, market, algoId, reference, quantity.value);
  const base: LiveAlgo = { record, command: { ...command, quantity: quantity.value?.toFixed() } };
  if (!trailing) return base;
  const start = { side: cmd.side, activatePrice: reference, callbackRate: callbackRate! };
  return { ...base, trailing: trackTrailingStop(start, mark).state };
}

/**
 * The order's shape at its reference price (lot, notional; quantity fixed here) and, except for
 * trailing stops, that the mark has not already reached the trigger.
 */
function checkAtReference(
  ctx: RiskContext,
  cmd: NewAlgoCommand,
  market: Market,
  command: DerivedOrderCommand,
  reference: Money,
  mark: Money,
  trailing: boolean,
) {
  const { p } = ctx;
  if (!trailing && isTriggered(triggerDirection(command.orderType, cmd.side), reference, mark))
    return refusal(
      'WOULD_TRIGGER_IMMEDIATELY',
      `mark price ${mark.toFixed()} already reached triggerPrice ${reference.toFixed()}: the order would trigger at once`,
    );
  if (cmd.closePosition) return { value: undefined };
  const r = checkOrderShape(
    p.book.account(cmd.user),
    market,
    {
      orderId: command.orderId,
      clientOrderId: command.clientOrderId,
      symbol: market.symbol,
      side: cmd.side,
      type: command.orderType,
      quantity: optionalMoney(cmd.quantity),
      price: optionalMoney(cmd.price),
      stopPrice: reference,
      reduceOnly: cmd.reduceOnly,
    },
    p.book.markPrices,
  );
  return r.ok ? { value: r.quantity } : refusal(r.reason, r.message);
}

function algoRecord(
  cmd: NewAlgoCommand,
  market: Market,
  algoId: number,
  reference: Money,
  quantity: Money | undefined,
): AlgoOrderRecord {
  const trailing = cmd.orderType === 'TRAILING_STOP_MARKET';
  const price = (v?: string | Money) =>
    v === undefined ? '0' : optionalMoney(v.toString())!.toFixed(market.pricePrecision);
  return {
    algoId,
    clientAlgoId: cmd.clientAlgoId,
    user: cmd.user,
    algoType: 'CONDITIONAL',
    orderType: cmd.orderType,
    symbol: market.symbol,
    side: cmd.side,
    positionSide: 'BOTH',
    timeInForce: cmd.timeInForce,
    quantity: quantity?.toFixed(market.quantityPrecision) ?? '0',
    algoStatus: 'NEW',
    triggerPrice: price(reference),
    price: price(cmd.price),
    closePosition: cmd.closePosition,
    priceProtect: cmd.priceProtect,
    reduceOnly: cmd.reduceOnly,
    activatePrice: trailing ? price(reference) : null,
    callbackRate: trailing ? (cmd.callbackRate ?? null) : null,
    workingType: cmd.workingType,
    createTime: cmd.time,
    updateTime: cmd.time,
    triggerTime: 0,
    goodTillDate: cmd.goodTillDate ?? 0,
    actualOrderId: '',
  };
}
