import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Bus, type BusMessage, nextOffset, type Subscription } from '@perp/bus';
import {
  type AccountEvent,
  deterministicUuid,
  MessageValidationError,
  parseMessage,
  TOPICS,
} from '@perp/contracts';
import { IncomeRepository, OrderRepository, TradeRepository, userIdForAddress } from '@perp/persistence';

export const HISTORY_GROUP = 'history-projector';

/**
 * Account history into Postgres: order rows (the whole record after each change), trade sides and
 * income. Every write is idempotent (upsert by id, insert-or-ignore by derived id), so a replay of
 * the account-event log after a crash changes nothing.
 */
@Injectable()
export class HistoryProjector implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('history');
  private subscription?: Subscription;

  constructor(
    private readonly bus: Bus,
    private readonly orders: OrderRepository,
    private readonly trades: TradeRepository,
    private readonly income: IncomeRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      groupId: HISTORY_GROUP,
      topics: [TOPICS.accountEvents.name],
      handler: (m) => this.handle(m),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  private async handle(m: BusMessage): Promise<void> {
    let event: AccountEvent | undefined;
    try {
      event = parseMessage('accountEvents', m.value);
    } catch (e) {
      if (!(e instanceof MessageValidationError)) throw e;
      this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
    }
    if (event) await this.project(event);
    await this.subscription?.commit({ topic: m.topic, partition: m.partition, offset: nextOffset(m.offset) });
  }

  private async project(event: AccountEvent): Promise<void> {
    switch (event.type) {
      case 'order': {
        const o = event.order;
        await this.orders.upsert({
          id: o.orderId,
          userId: userIdForAddress(o.user),
          symbol: o.symbol,
          clientOrderId: o.clientOrderId,
          side: o.side,
          type: o.type,
          origType: o.origType,
          timeInForce: o.timeInForce,
          price: o.price,
          origQty: o.origQty,
          executedQty: o.executedQty,
          cumQuote: o.cumQuote,
          avgPrice: o.avgPrice,
          status: o.status,
          reduceOnly: o.reduceOnly,
          priceProtect: o.priceProtect,
          stopPrice: o.stopPrice,
          workingType: o.workingType,
          positionSide: o.positionSide,
          createdAt: o.time,
          updatedAt: o.updateTime,
        });
        return;
      }
      case 'trade': {
        const t = event.trade;
        await this.trades.insertMany([
          {
            id: t.tradeId,
            orderId: t.orderId,
            userId: userIdForAddress(t.user),
            symbol: t.symbol,
            side: t.side,
            price: t.price,
            qty: t.qty,
            quoteQty: t.quoteQty,
            commission: t.commission,
            commissionAsset: t.commissionAsset,
            realizedPnl: t.realizedPnl,
            maker: t.maker,
            time: t.time,
          },
        ]);
        return;
      }
      case 'income':
        await this.income.insertMany([
          {
            id: deterministicUuid(event.id),
            userId: userIdForAddress(event.user),
            symbol: event.symbol,
            incomeType: event.incomeType,
            income: event.income,
            asset: event.asset,
            info: event.info,
            tradeId: event.tradeId,
            time: event.time,
          },
        ]);
        return;
      default:
        return;
    }
  }
}
