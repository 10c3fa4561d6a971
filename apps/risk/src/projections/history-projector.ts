import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { afterBatch, Bus, type BusMessage, Joining, type Subscription } from '@perp/bus';
import {
  type AccountEvent,
  deterministicUuid,
  HISTORY_CONSUMER,
  MessageValidationError,
  parseMessage,
  parseOutputId,
  TOPICS,
  userIdForAddress,
} from '@perp/contracts';
import {
  type AlgoOrderEntity,
  AlgoOrderRepository,
  type ForceOrderEntity,
  ForceOrderRepository,
  type IncomeEntity,
  IncomeRepository,
  type InsuranceMovementEntity,
  InsuranceMovementRepository,
  OrderRepository,
  type OrderRow,
  ProcessedOffsetRepository,
  type TradeEntity,
  TradeRepository,
  WriteBatch,
} from '@perp/persistence';
import { resumeAtMark } from '@perp/infrastructure';
import { APP_CONFIG, type AppConfig } from '@perp/runtime';

export const HISTORY_GROUP = HISTORY_CONSUMER;
const MAX_TURN = 1000;

/**
 * One turn's rows: the last version of each order and algo order, every trade side, income row,
 * force order (liquidations and ADL closes) and insurance-fund movement.
 */
interface HistoryRows {
  orders: Map<string, OrderRow>;
  algos: Map<number, AlgoOrderEntity>;
  trades: TradeEntity[];
  income: IncomeEntity[];
  forceOrders: ForceOrderEntity[];
  insurance: InsuranceMovementEntity[];
}

/**
 * Account history into Postgres, behind the log: each batched turn of an account-event partition
 * becomes one statement of multi-row writes (orders upserted by id, trades and income inserted
 * or ignored by derived id) that also advances the projector's mark in `processed_offsets`. The
 * mark is where a new owner resumes (a replay changes nothing) and what the gateway waits on for
 * read-your-writes (`HistoryFreshness`).
 */
@Injectable()
export class HistoryProjector implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('history');
  private subscription?: Subscription;
  private readonly joining = new Joining();

  constructor(
    private readonly bus: Bus,
    private readonly marks: ProcessedOffsetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Joins beside the app's other groups (each new group waits out the broker's rebalance delay). */
  onModuleInit(): void {
    this.joining.start([
      this.bus.subscribe({
        groupId: HISTORY_GROUP,
        topics: [TOPICS.accountEvents.name],
        background: true,
        batchHandler: (ms, member) => this.handleTurn(ms, member),
        maxBatch: MAX_TURN,
        onAssigned: resumeAtMark(this.marks, HISTORY_CONSUMER),
      }),
    ]);
  }

  async onApplicationBootstrap(): Promise<void> {
    [this.subscription] = await this.joining.joined();
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.close();
  }

  /** One statement per turn; the bus commit after it is only a hint (the mark decides). */
  async handleTurn(messages: readonly BusMessage[], member = this.subscription): Promise<void> {
    const rows: HistoryRows = {
      orders: new Map(),
      algos: new Map(),
      trades: [],
      income: [],
      forceOrders: [],
      insurance: [],
    };
    for (const m of messages) {
      try {
        collect(parseMessage('accountEvents', m.value, m.inProcess), rows);
      } catch (e) {
        if (!(e instanceof MessageValidationError)) throw e;
        this.logger.warn(`skipped malformed ${m.topic}/${m.partition}@${m.offset}: ${e.message}`);
      }
    }
    const last = messages[messages.length - 1]!;
    const m = this.marks.manager;
    const batch = new WriteBatch();
    new OrderRepository(m).upsertInto(batch, [...rows.orders.values()]);
    new AlgoOrderRepository(m).upsertInto(batch, [...rows.algos.values()]);
    new TradeRepository(m).insertInto(batch, rows.trades);
    new IncomeRepository(m).insertInto(batch, rows.income);
    new ForceOrderRepository(m).insertInto(batch, rows.forceOrders);
    new InsuranceMovementRepository(m).insertInto(batch, rows.insurance);
    await this.marks.applyWritesOnce(
      { consumer: HISTORY_CONSUMER, topic: last.topic, partition: last.partition, offset: last.offset },
      batch,
    );
    member?.commitLater(afterBatch(messages));
    // A partial turn: let the next one gather more events (fewer, larger transactions).
    if (messages.length < MAX_TURN && this.config.HISTORY_BATCH_MS > 0)
      await new Promise((resolve) => setTimeout(resolve, this.config.HISTORY_BATCH_MS));
  }
}

function collect(event: AccountEvent, rows: HistoryRows): void {
  switch (event.type) {
    case 'order': {
      const o = event.order;
      rows.orders.set(o.orderId, {
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
        selfTradePreventionMode: o.selfTradePreventionMode,
        createdAt: o.time,
        updatedAt: o.updateTime,
      });
      return;
    }
    case 'algoOrder': {
      const { user, reason: _reason, ...record } = event.algo;
      void _reason;
      rows.algos.set(record.algoId, {
        algoId: record.algoId,
        userId: userIdForAddress(user),
        symbol: record.symbol,
        clientAlgoId: record.clientAlgoId,
        status: record.algoStatus,
        createdAt: record.createTime,
        updatedAt: record.updateTime,
        record: JSON.stringify({ ...record, user }),
      });
      return;
    }
    case 'trade': {
      const t = event.trade;
      rows.trades.push({
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
      });
      return;
    }
    case 'income':
      rows.income.push({
        id: deterministicUuid(event.id),
        userId: userIdForAddress(event.user),
        symbol: event.symbol,
        incomeType: event.incomeType,
        income: event.income,
        asset: event.asset,
        info: event.info,
        tradeId: event.tradeId,
        time: event.time,
      });
      return;
    case 'forceOrder': {
      const f = event.forceOrder;
      rows.forceOrders.push({
        id: deterministicUuid(event.id),
        userId: userIdForAddress(event.user),
        orderId: f.orderId,
        symbol: f.symbol,
        autoCloseType: f.autoCloseType,
        side: f.side,
        price: f.price,
        avgPrice: f.avgPrice,
        origQty: f.origQty,
        executedQty: f.executedQty,
        fee: f.fee,
        time: f.time,
        updateTime: f.updateTime,
      });
      return;
    }
    case 'insurance': {
      // The place of the risk input behind it orders a partition's movements (latest = its share).
      const place = parseOutputId(event.id);
      rows.insurance.push({
        id: deterministicUuid(event.id),
        partition: event.partition,
        symbol: event.symbol,
        kind: event.kind,
        amount: event.amount,
        balance: event.balance,
        ref: event.ref,
        time: event.time,
        sourceOffset: place?.offset ?? '0',
        sourceIndex: place?.index ?? 0,
      });
      return;
    }
    default:
      return;
  }
}
