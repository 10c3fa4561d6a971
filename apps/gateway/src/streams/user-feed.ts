import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Bus, type BusMessage, type Subscription } from '@perp/bus';
import { type AccountEvent, parseMessage, TOPICS } from '@perp/contracts';
import { MarketRegistry, Money } from '@perp/domain';
import { nativeConditionalView, nativeRecordView } from '../native/trading/native-order-view';
import { nativeBalanceUpdate, nativePositionUpdate } from './native-payloads';
import { StreamHub } from './stream-hub';
import {
  accountConfigUpdate,
  type AccountChange,
  accountUpdate,
  algoUpdate,
  forceOrderPayload,
  marginCall,
  orderTradeUpdate,
} from './user-payloads';

/** The input an account event came from: its id without the output index (see outputId). */
function inputOf(e: AccountEvent): string {
  const cut = e.id.lastIndexOf('/');
  return cut < 0 ? e.id : e.id.slice(0, cut);
}

/**
 * This replica's user data streams: the account events topic read with a consumer group of its
 * own, from the latest on, events grouped by the input that caused them (risk emits one input's
 * events together and in order, per user), turned into ORDER_TRADE_UPDATE and ACCOUNT_UPDATE for
 * the users connected here, in the order risk produced them (also ALGO_UPDATE, ACCOUNT_CONFIG_UPDATE
 * and MARGIN_CALL), and the native private channels (orders, positions, balances, algoOrders) of
 * the users authenticated on /api/v1/ws; completed liquidations go to the public `forceOrder` streams.
 */
@Injectable()
export class UserFeed implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('UserFeed');
  private subscription: Subscription | undefined;
  /** Last wallet balance seen per user (for ACCOUNT_UPDATE's balance change). */
  private readonly wallets = new Map<string, Money>();
  readonly groupId = `gateway.streams.${randomUUID()}.account`;

  constructor(
    private readonly bus: Bus,
    private readonly hub: StreamHub,
    private readonly markets: MarketRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      groupId: this.groupId,
      topics: [TOPICS.accountEvents.name],
      start: 'latest',
      batchHandler: (ms) => this.onAccountEvents(ms),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  private onAccountEvents(ms: readonly BusMessage[]): void {
    let change: (AccountChange & { input: string }) | undefined;
    for (const m of ms) {
      let e: AccountEvent;
      try {
        e = parseMessage('accountEvents', m.value);
      } catch (err) {
        this.logger.warn(`skipped ${m.topic}/${m.partition}@${m.offset}: ${String(err)}`);
        continue;
      }
      if (!('user' in e)) continue; // the insurance fund's movements: no user stream
      if (e.type === 'forceOrder' && e.forceOrder.autoCloseType === 'LIQUIDATION') this.liquidation(e);
      const input = inputOf(e);
      if (change && (change.input !== input || change.user !== e.user)) {
        this.emit(change);
        change = undefined;
      }
      change ??= { input, user: e.user, time: e.time, events: [] };
      change.events.push(e);
    }
    if (change) this.emit(change);
  }

  private emit(change: AccountChange): void {
    const previous = this.wallets.get(change.user);
    for (const e of change.events)
      if (e.type === 'balance') this.wallets.set(change.user, new Money(e.walletBalance));
    if (this.hub.hasNativeUser(change.user)) this.emitNative(change);
    if (!this.hub.hasUser(change.user)) return;
    const now = Date.now();
    const fills = new Map<string, Extract<AccountEvent, { type: 'trade' }>['trade']>();
    // The orders algo orders fired as, as the input left them (ALGO_UPDATE's fill figures).
    const orders = new Map<string, Extract<AccountEvent, { type: 'order' }>['order']>();
    for (const e of change.events) if (e.type === 'order') orders.set(e.order.orderId, e.order);
    const publish = (data: unknown) => this.hub.publishUser(change.user, data);
    for (const e of change.events) {
      if (e.type === 'trade') fills.set(e.trade.orderId, e.trade);
      else if (e.type === 'order') {
        const fill = fills.get(e.order.orderId);
        fills.delete(e.order.orderId);
        publish(orderTradeUpdate(this.markets.find(e.order.symbol), e.order, fill, now));
      } else if (e.type === 'algoOrder') publish(algoUpdate(e.algo, orders.get(e.algo.actualOrderId), now));
      else if (e.type === 'leverage') publish(accountConfigUpdate(e, now));
      else if (e.type === 'marginCall') publish(marginCall(e, now));
    }
    const update = accountUpdate(change, previous, now);
    if (update) publish(update);
  }

  /** The native private channels' updates of one input, in the order risk emitted its events. */
  private emitNative(change: AccountChange): void {
    const publish = (kind: string, data: unknown) => this.hub.publishNative(change.user, kind, data);
    for (const e of change.events) {
      if (e.type === 'order') publish('orders', nativeRecordView(e.order, this.markets.find(e.order.symbol)));
      else if (e.type === 'algoOrder') publish('algoOrders', nativeConditionalView(e.algo));
      else if (e.type === 'position')
        publish('positions', nativePositionUpdate(e, this.markets.find(e.symbol)));
      else if (e.type === 'balance') publish('balances', nativeBalanceUpdate(e));
    }
  }

  /** A completed liquidation on the public liquidation streams (whoever's it was: anonymous there). */
  private liquidation(e: Extract<AccountEvent, { type: 'forceOrder' }>): void {
    const m = this.markets.find(e.forceOrder.symbol);
    const key = `${m?.symbol ?? e.forceOrder.symbol}@forceOrder`;
    if (!this.hub.has(key) && !this.hub.has('!forceOrder@arr')) return;
    const payload = forceOrderPayload(m, e.forceOrder, Date.now());
    this.hub.publish(key, payload);
    this.hub.publish('!forceOrder@arr', payload);
  }
}
