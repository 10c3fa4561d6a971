import {
  type Bus,
  type BusMessage,
  HEADER_CORRELATION_ID,
  HEADER_REPLY_KEY,
  HEADER_REPLY_TO,
  type Subscription,
  type TopicPartition,
} from '@perp/bus';
import type { HotStore } from '@perp/cache';
import {
  type AccountEvent,
  type AccountProjection,
  CLOSED_ORDER_TTL_MS,
  type EngineCommand,
  type EngineEvent,
  HOT_KEYS,
  type MessageBody,
  type OrderRecord,
  type OutcomeReason,
  outputId,
  type Reply,
  type RiskCommand,
  TOPICS,
} from '@perp/contracts';
import {
  type AccountBookOptions,
  AccountBook,
  type Chain,
  isTriggerOrderType,
  type Market,
  type MarketRegistry,
  Money,
  parseDecimal,
  type PreTradeRequest,
  type PreTradeResult,
  triggeredOrderType,
  type TriggerOrderType,
} from '@perp/domain';
import { ShardPartitions, type SnapshotPolicy } from '@perp/infrastructure';
import type { EngineSnapshotRepository } from '@perp/persistence';
import { isOpen, newOrderRecord, recordAmended, recordClosed, recordFill } from './order-records';
import { RISK_SNAPSHOT_VERSION, RiskPartition, type WaitingTrigger } from './risk-partition';

export type RiskShardOptions = SnapshotPolicy;

type ReplyTo = { topic: string; key: string; correlationId: string };
type ReplyBody = Pick<Reply, 'ok' | 'result' | 'error'>;

/** What one input produces, published in this order: engine commands, account events, replies. */
class Output {
  readonly engineCommands: EngineCommand[] = [];
  readonly accountEvents: MessageBody<AccountEvent>[] = [];
  readonly users = new Set<string>();
  readonly closed: OrderRecord[] = [];
  reply?: ReplyBody;
  replyTo?: ReplyTo;
}

/** A refusal as the reply: a neutral reason (the domain's reasons are among them) and a message. */
function refusal(reason: OutcomeReason, msg: string): ReplyBody {
  return { ok: false, error: { reason, msg } };
}

type NewOrderCommand = Extract<RiskCommand, { type: 'order.new' }>;

function optionalMoney(v?: string): Money | undefined {
  return v === undefined ? undefined : parseDecimal(v);
}

/** A New Order command as the domain's pre-trade request. */
function preTradeRequest(cmd: NewOrderCommand): PreTradeRequest {
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

/**
 * Risk stage 1 and 2 for the risk-command partitions this member owns (users by hash): pre-trade
 * checks and margin freeze before an order goes to its engine shard, then settlement of the engine
 * events the router copies back into the user's partition, all in one ordered stream per user.
 *
 * Exactly-once effect: forwarded engine commands carry their origin (partition, offset), which the
 * engine dedupes; engine-event copies carry their source place, deduped here by high-water mark;
 * output ids derive from the input's place, so a replay after a crash re-emits the same ids.
 */
export class RiskShard {
  private readonly partitions: ShardPartitions<RiskPartition>;
  private readonly bookOptions: AccountBookOptions;

  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
    chain: Chain,
    private readonly hot: HotStore,
    snapshots?: EngineSnapshotRepository,
    options: RiskShardOptions = {},
  ) {
    const bookOptions: AccountBookOptions = {
      markets: (s) => markets.find(s),
      feeTiers: chain.feeTiers,
      asset: chain.settlementAsset,
    };
    this.bookOptions = bookOptions;
    this.partitions = new ShardPartitions(
      TOPICS.riskCommands.name,
      RISK_SNAPSHOT_VERSION,
      {
        empty: (partition) => new RiskPartition(partition, new AccountBook(bookOptions)),
        restore: (partition, state) => RiskPartition.deserialize(partition, state, bookOptions),
      },
      snapshots,
      options,
    );
  }

  stop(): void {
    this.partitions.stop();
  }

  ownedPartitions(): number[] {
    return this.partitions.owned();
  }

  /** The account book of a partition this member owns (tests, invariants). */
  book(partition: number): AccountBook | undefined {
    return this.partitions.get(partition)?.book;
  }

  assigned(partitions: TopicPartition[], sub: Subscription): Promise<void> {
    return this.partitions.assigned(partitions, sub);
  }

  revoked(partitions: TopicPartition[]): Promise<void> {
    return this.partitions.revoked(partitions);
  }

  snapshotAll(): Promise<void> {
    return this.partitions.saveAll();
  }

  /** Applies one risk command of an owned partition and publishes what it produced. */
  async handle(m: BusMessage, cmd: RiskCommand): Promise<void> {
    const state = this.partitions.getOrCreate(m.partition);
    await state.run(async () => {
      const offset = BigInt(m.offset);
      if (offset <= state.lastOffset) return;
      const out = new Output();
      out.replyTo = replyToOf(m);
      this.apply(state, m, cmd, out);
      await this.publish(state, m, cmd, out);
      await this.partitions.applied(state, offset);
    });
  }

  private async publish(p: RiskPartition, m: BusMessage, cmd: RiskCommand, out: Output): Promise<void> {
    for (const c of out.engineCommands) await this.bus.publish(TOPICS.engineCommands.name, c.symbol, c);
    let i = 0;
    for (const e of out.accountEvents) {
      const event = {
        ...e,
        id: outputId(m.topic, m.partition, m.offset, i++),
        v: 1 as const,
        time: cmd.time,
      };
      await this.bus.publish(TOPICS.accountEvents.name, e.user, event);
    }
    for (const r of out.closed)
      await this.hot.set(HOT_KEYS.closedOrder(r.orderId), JSON.stringify(r), { ttlMs: CLOSED_ORDER_TTL_MS });
    for (const user of out.users) await this.writeAccount(p, user, cmd.time);
    if (out.reply && out.replyTo) {
      const { topic, key, correlationId } = out.replyTo;
      const reply: Reply = { correlationId, time: Date.now(), ...out.reply };
      await this.bus.publish(topic, key, reply, { [HEADER_CORRELATION_ID]: correlationId });
    }
  }

  private async writeAccount(p: RiskPartition, user: string, time: number): Promise<void> {
    const projection: AccountProjection = {
      v: 1,
      user,
      time,
      state: p.book.account(user).toState() as unknown as Record<string, unknown>,
      orders: p.openOrdersOf(user),
    };
    await this.hot.set(HOT_KEYS.account(user), JSON.stringify(projection));
  }

  private apply(p: RiskPartition, m: BusMessage, cmd: RiskCommand, out: Output): void {
    const origin = { partition: m.partition, offset: m.offset };
    const book = p.book;
    switch (cmd.type) {
      case 'deposit': {
        const amount = parseDecimal(cmd.amount);
        if (!amount || !amount.gt(0)) {
          out.reply = refusal('INVALID_AMOUNT', 'amount must be positive');
          return;
        }
        book.deposit(cmd.user, amount, cmd.id);
        this.balanceEvent(p, cmd.user, out);
        const b = book.balances(cmd.user);
        out.reply = {
          ok: true,
          result: {
            address: cmd.user,
            asset: cmd.asset,
            balance: b.walletBalance.toFixed(),
            availableBalance: b.availableBalance.toFixed(),
          },
        };
        return;
      }
      case 'vip.set':
        out.reply = book.setVipTier(cmd.user, cmd.tier)
          ? { ok: true, result: { address: cmd.user, tier: cmd.tier } }
          : refusal('INVALID_VIP_TIER', `no VIP tier ${cmd.tier} on this chain`);
        out.users.add(cmd.user);
        return;
      case 'leverage.set': {
        const r = book.setLeverage(cmd.user, cmd.symbol, cmd.leverage);
        out.reply = r.ok
          ? {
              ok: true,
              result: {
                leverage: r.leverage,
                maxNotionalValue: r.maxNotionalValue.toFixed(),
                symbol: r.symbol,
              },
            }
          : refusal(r.reason, r.message);
        if (r.ok) out.users.add(cmd.user);
        return;
      }
      case 'margin.mode': {
        const r = book.setMarginMode(cmd.user, cmd.mode);
        out.reply = r.ok
          ? { ok: true, result: { marginMode: r.mode, changed: r.changed } }
          : refusal(r.reason, r.message);
        if (r.ok) out.users.add(cmd.user);
        return;
      }
      case 'collateral': {
        const amount = parseDecimal(cmd.amount);
        if (!amount || !amount.gt(0)) {
          out.reply = refusal('INVALID_AMOUNT', 'amount must be positive');
          return;
        }
        const r =
          cmd.action === 'add'
            ? book.addCollateral(cmd.user, cmd.symbol, amount)
            : book.removeCollateral(cmd.user, cmd.symbol, amount);
        out.reply = r.ok
          ? {
              ok: true,
              result: {
                symbol: r.symbol,
                collateral: r.collateral.toFixed(),
                isolatedMargin: r.isolatedMargin.toFixed(),
              },
            }
          : refusal(r.reason, r.message);
        if (r.ok) out.users.add(cmd.user);
        return;
      }
      case 'price.mark': {
        const mark = parseDecimal(cmd.markPrice);
        if (!mark?.gt(0)) return;
        book.setMarkPrice(cmd.symbol, mark);
        p.triggers.fire(cmd.symbol, mark).forEach((t, i) => this.fireTrigger(p, m, t, i, cmd.time, out));
        return;
      }
      case 'order.new':
        return this.newOrder(p, m, cmd, out);
      case 'order.cancel': {
        const rec = p.findOpen(cmd.user, cmd.orderId, cmd.clientOrderId);
        if (!rec || rec.symbol !== cmd.symbol) {
          out.reply = refusal('UNKNOWN_ORDER', 'no open order with this id');
          return;
        }
        if (p.triggers.remove(rec.orderId)) {
          // A trigger order never reached the engine: cancelled here.
          const closed = this.closeOrder(p, cmd.user, rec.orderId, 'CANCELED', cmd.time, out);
          out.reply = { ok: true, result: closed };
          return;
        }
        out.engineCommands.push({
          id: outputId(m.topic, m.partition, m.offset, 0),
          v: 1,
          time: cmd.time,
          type: 'order.cancel',
          user: cmd.user,
          symbol: rec.symbol,
          orderId: rec.orderId,
          origin,
          ...(out.replyTo ? { replyTo: out.replyTo } : {}),
        });
        out.reply = undefined;
        return;
      }
      case 'order.cancelAll':
        for (const rec of p.openOrdersOf(cmd.user, cmd.symbol))
          if (p.triggers.remove(rec.orderId))
            this.closeOrder(p, cmd.user, rec.orderId, 'CANCELED', cmd.time, out);
        out.engineCommands.push({
          id: outputId(m.topic, m.partition, m.offset, 0),
          v: 1,
          time: cmd.time,
          type: 'order.cancelAll',
          user: cmd.user,
          symbol: cmd.symbol,
          origin,
          ...(out.replyTo ? { replyTo: out.replyTo } : {}),
        });
        return;
      case 'order.amend':
        return this.amend(p, m, cmd, out);
      case 'engine.event':
        return this.engineEvent(p, cmd, out);
    }
  }

  private newOrder(p: RiskPartition, m: BusMessage, cmd: NewOrderCommand, out: Output): void {
    const market = this.markets.find(cmd.symbol);
    if (!market || market.status !== 'TRADING') {
      out.reply = market
        ? refusal('MARKET_NOT_TRADING', `${market.symbol} is not trading`)
        : refusal('INVALID_SYMBOL', `no market ${cmd.symbol}`);
      return;
    }
    if (p.record(cmd.orderId)) {
      out.reply = refusal('DUPLICATE_ORDER_ID', 'order id already in use');
      return;
    }
    // Waiting trigger orders hold no margin, so the account does not know their client ids.
    if (p.findOpen(cmd.user, undefined, cmd.clientOrderId)) {
      out.reply = refusal('DUPLICATE_CLIENT_ORDER_ID', 'newClientOrderId is used by an active order');
      return;
    }
    const order = { ...cmd, symbol: market.symbol };
    const type = order.orderType;
    if (isTriggerOrderType(type)) return this.newTrigger(p, m, { ...order, orderType: type }, market, out);
    const r = this.forwardOrder(p, m, order, 0, out);
    if (!r.ok) {
      out.reply = refusal(r.reason, r.message);
      return;
    }
    const record = newOrderRecord(order, r.quantity, market);
    p.put(record);
    out.accountEvents.push({ type: 'order', user: cmd.user, order: record });
    this.balanceEvent(p, cmd.user, out);
  }

  /**
   * Pre-trade (margin frozen) and, when accepted, the order.place command for the engine: the
   * `index`th command this input forwards, which the engine dedupes by with the input's place.
   */
  private forwardOrder(
    p: RiskPartition,
    m: BusMessage,
    cmd: NewOrderCommand,
    index: number,
    out: Output,
  ): PreTradeResult {
    const r = p.book.placeOrder(cmd.user, preTradeRequest(cmd));
    if (!r.ok) return r;
    out.engineCommands.push({
      id: outputId(m.topic, m.partition, m.offset, index),
      v: 1,
      time: cmd.time,
      type: 'order.place',
      orderId: cmd.orderId,
      clientOrderId: cmd.clientOrderId,
      user: cmd.user,
      symbol: cmd.symbol,
      side: cmd.side,
      orderType: cmd.orderType,
      timeInForce: cmd.timeInForce,
      quantity: r.quantity.toFixed(),
      ...(cmd.price !== undefined ? { price: cmd.price } : {}),
      reduceOnly: cmd.reduceOnly,
      workingType: cmd.workingType,
      priceProtect: cmd.priceProtect,
      selfTradePreventionMode: cmd.selfTradePreventionMode,
      frozenMargin: r.frozenMargin.toFixed(),
      origin: { partition: m.partition, offset: m.offset, index },
      ...(out.replyTo ? { replyTo: out.replyTo } : {}),
    });
    return r;
  }

  /** Rule 8: stored here until the mark price reaches stopPrice; refused when it already has. */
  private newTrigger(
    p: RiskPartition,
    m: BusMessage,
    cmd: NewOrderCommand & { orderType: TriggerOrderType },
    market: Market,
    out: Output,
  ): void {
    const stopPrice = optionalMoney(cmd.stopPrice);
    if (!stopPrice) {
      out.reply = refusal('MISSING_PARAMETER', 'stopPrice is required');
      return;
    }
    const r = p.book.checkTriggerOrder(cmd.user, { ...preTradeRequest(cmd), type: cmd.orderType, stopPrice });
    if (!r.ok) {
      out.reply = refusal(r.reason, r.message);
      return;
    }
    const record = newOrderRecord(cmd, r.quantity, market);
    p.put(record);
    const { quoteOrderQty: _converted, ...command } = cmd;
    p.triggers.add({
      orderId: cmd.orderId,
      symbol: market.symbol,
      direction: r.direction,
      stopPrice,
      seq: Number(m.offset),
      user: cmd.user,
      command: { ...command, quantity: r.quantity.toFixed() },
    });
    out.accountEvents.push({ type: 'order', user: cmd.user, order: record });
    out.users.add(cmd.user);
    out.reply = { ok: true, result: record };
  }

  /**
   * The mark reached a trigger: its derived LIMIT or MARKET order goes through pre-trade now (margin
   * frozen at this moment) and on to the engine under the same order id; refused, it is REJECTED.
   */
  private fireTrigger(
    p: RiskPartition,
    m: BusMessage,
    t: WaitingTrigger,
    index: number,
    time: number,
    out: Output,
  ): void {
    const { price, ...rest } = t.command;
    const type = triggeredOrderType(rest.orderType);
    const derived = { ...rest, orderType: type, time, ...(type === 'LIMIT' ? { price } : {}) };
    if (!this.forwardOrder(p, m, derived, index, out).ok) {
      this.closeOrder(p, t.user, t.orderId, 'REJECTED', time, out);
      return;
    }
    const rec = p.openOrder(t.orderId);
    if (rec) {
      const fired = { ...rec, type, updateTime: Math.max(rec.updateTime, time) };
      p.put(fired);
      out.accountEvents.push({ type: 'order', user: t.user, order: fired });
    }
    this.balanceEvent(p, t.user, out);
  }

  private amend(
    p: RiskPartition,
    m: BusMessage,
    cmd: Extract<RiskCommand, { type: 'order.amend' }>,
    out: Output,
  ): void {
    const rec = p.findOpen(cmd.user, cmd.orderId, cmd.clientOrderId);
    const market = this.markets.find(cmd.symbol);
    if (!rec || !market || rec.symbol !== market.symbol) {
      out.reply = refusal('ORDER_NOT_MODIFIABLE', 'no open order with this id');
      return;
    }
    if (rec.side !== cmd.side) {
      out.reply = refusal('SIDE_MISMATCH', 'side does not match the order');
      return;
    }
    if (rec.type !== 'LIMIT') {
      out.reply = refusal('ORDER_NOT_MODIFIABLE', 'only LIMIT orders can be modified');
      return;
    }
    const openQty = new Money(cmd.quantity).minus(rec.executedQty);
    if (!openQty.gt(0)) {
      out.reply = refusal('ORDER_NOT_MODIFIABLE', 'the new quantity is not above the executed quantity');
      return;
    }
    // Margin as for a new order of the open quantity at the new price; on refusal the old stays.
    const account = p.book.account(cmd.user);
    const before = account.order(rec.orderId);
    if (!before) {
      out.reply = refusal('ORDER_NOT_MODIFIABLE', 'no open order with this id');
      return;
    }
    const old = { ...before };
    account.removeOrder(rec.orderId);
    const r = p.book.placeOrder(cmd.user, {
      orderId: rec.orderId,
      clientOrderId: rec.clientOrderId,
      symbol: market.symbol,
      side: rec.side,
      type: 'LIMIT',
      quantity: openQty,
      price: parseDecimal(cmd.price),
      reduceOnly: rec.reduceOnly,
    });
    if (!r.ok) {
      account.addOrder(old);
      out.reply = refusal(r.reason, r.message);
      return;
    }
    out.engineCommands.push({
      id: outputId(m.topic, m.partition, m.offset, 0),
      v: 1,
      time: cmd.time,
      type: 'order.amend',
      user: cmd.user,
      symbol: market.symbol,
      orderId: rec.orderId,
      price: new Money(cmd.price).toFixed(),
      quantity: r.quantity.toFixed(),
      origin: { partition: m.partition, offset: m.offset },
      ...(out.replyTo ? { replyTo: out.replyTo } : {}),
    });
    this.balanceEvent(p, cmd.user, out);
  }

  private engineEvent(
    p: RiskPartition,
    cmd: Extract<RiskCommand, { type: 'engine.event' }>,
    out: Output,
  ): void {
    const { source } = cmd;
    const offset = BigInt(source.offset);
    if (!p.isNewEngineEvent(source.partition, offset, source.index)) return;
    this.applyEngineEvent(p, cmd, out);
    // Marked once applied: a copy whose settlement threw is retried, not taken for a duplicate.
    p.markEngineEvent(source.partition, offset, source.index);
  }

  private applyEngineEvent(
    p: RiskPartition,
    cmd: Extract<RiskCommand, { type: 'engine.event' }>,
    out: Output,
  ): void {
    const { source, event } = cmd;
    // Replies to forwarded commands come from the event that ends them, not from this message.
    out.replyTo = undefined;
    switch (event.type) {
      case 'order.rejected':
      case 'order.canceled':
      case 'order.expired':
        this.closeOrder(
          p,
          event.user,
          event.orderId,
          event.type === 'order.rejected' ? 'REJECTED' : 'CANCELED',
          event.time,
          out,
        );
        return;
      case 'order.amended': {
        const rec = p.openOrder(event.orderId);
        const market = this.markets.find(event.symbol);
        if (!rec || !market) return;
        const next = recordAmended(rec, event.price, event.quantity, event.time, market);
        p.put(next);
        out.accountEvents.push({ type: 'order', user: next.user, order: next });
        out.users.add(next.user);
        return;
      }
      case 'trade':
        return this.settle(p, event, cmd.liquidity ?? legacyLiquidity(source.index), out);
      case 'command.result':
        return this.commandResult(p, event, out);
      default:
        return;
    }
  }

  private closeOrder(
    p: RiskPartition,
    user: string,
    orderId: string,
    status: 'CANCELED' | 'REJECTED',
    time: number,
    out: Output,
  ): OrderRecord | undefined {
    p.book.releaseOrder(user, orderId);
    const rec = p.openOrder(orderId);
    let closed: OrderRecord | undefined;
    if (rec && isOpen(rec)) {
      closed = recordClosed(rec, status, time);
      p.close(closed);
      out.closed.push(closed);
      out.accountEvents.push({ type: 'order', user, order: closed });
    }
    this.balanceEvent(p, user, out);
    return closed;
  }

  private settle(
    p: RiskPartition,
    trade: Extract<EngineEvent, { type: 'trade' }>,
    liquidity: 'MAKER' | 'TAKER',
    out: Output,
  ): void {
    const side = liquidity === 'MAKER' ? trade.maker : trade.taker;
    const market = this.markets.find(trade.symbol);
    if (!market) throw new Error(`trade ${trade.tradeId} of unknown market ${trade.symbol}`);
    const r = p.book.settleFill({
      user: side.user,
      orderId: side.orderId,
      symbol: trade.symbol,
      side: side.side,
      price: new Money(trade.price),
      qty: new Money(trade.qty),
      liquidity,
      closeQty: new Money(side.split.close),
      tradeId: trade.tradeId,
      time: trade.time,
    });
    const user = side.user;
    const quote = new Money(trade.price).times(trade.qty);
    out.accountEvents.push({
      type: 'trade',
      user,
      trade: {
        tradeId: trade.tradeId,
        orderId: side.orderId,
        user,
        symbol: trade.symbol,
        side: side.side,
        price: trade.price,
        qty: trade.qty,
        quoteQty: quote.toFixed(),
        commission: r.commission.abs().toFixed(),
        commissionAsset: this.bookOptions.asset ?? 'USDT',
        realizedPnl: r.realizedPnl.toFixed(),
        maker: liquidity === 'MAKER',
        time: trade.time,
      },
    });
    for (const income of r.incomes)
      out.accountEvents.push({
        type: 'income',
        user,
        symbol: income.symbol,
        incomeType: income.incomeType,
        income: income.income.toFixed(),
        asset: 'USDT',
        tradeId: income.tradeId,
        info: income.info,
      });
    const rec = p.openOrder(side.orderId);
    if (rec) {
      const next = recordFill(rec, trade.price, trade.qty, trade.time, market);
      if (isOpen(next)) p.put(next);
      else {
        p.close(next);
        out.closed.push(next);
      }
      out.accountEvents.push({ type: 'order', user, order: next });
    }
    const view = p.book.positions(user).find((v) => v.symbol === trade.symbol);
    out.accountEvents.push({
      type: 'position',
      user,
      symbol: trade.symbol,
      size: (view?.size ?? new Money(0)).toFixed(),
      entryPrice: (view?.entryPrice ?? new Money(0)).toFixed(),
      leverage: view?.leverage ?? p.book.account(user).leverage(market),
    });
    this.balanceEvent(p, user, out);
  }

  private commandResult(
    p: RiskPartition,
    event: Extract<EngineEvent, { type: 'command.result' }>,
    out: Output,
  ): void {
    if (event.command === 'order.place' && !event.ok && event.orderId)
      this.closeOrder(p, event.user, event.orderId, 'REJECTED', event.time, out);
    if (!event.replyTo) return;
    out.replyTo = event.replyTo;
    if (!event.ok) {
      out.reply = {
        ok: false,
        error: event.error ?? { reason: 'INTERNAL_ERROR', msg: 'the engine gave no reason' },
      };
      return;
    }
    const rec = event.orderId === undefined ? undefined : p.record(event.orderId);
    out.reply = { ok: true, result: rec ?? event.result };
  }

  private balanceEvent(p: RiskPartition, user: string, out: Output): void {
    const a = p.book.account(user);
    out.accountEvents.push({
      type: 'balance',
      user,
      asset: 'USDT',
      walletBalance: a.walletBalance.toFixed(),
      frozen: a.frozenMargin().toFixed(),
    });
    out.users.add(user);
  }
}

/** Trade copies routed before `liquidity` existed: the router numbered the maker's copy even. */
function legacyLiquidity(index: number): 'MAKER' | 'TAKER' {
  return index % 2 === 0 ? 'MAKER' : 'TAKER';
}

function replyToOf(m: BusMessage): ReplyTo | undefined {
  const correlationId = m.headers[HEADER_CORRELATION_ID];
  const topic = m.headers[HEADER_REPLY_TO];
  if (!correlationId || !topic) return undefined;
  return { topic, key: m.headers[HEADER_REPLY_KEY] ?? correlationId, correlationId };
}
