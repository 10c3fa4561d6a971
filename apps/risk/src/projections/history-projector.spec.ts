import type { Bus, BusMessage } from '@perp/bus';
import { type AccountEvent, outputId, TOPICS, userIdForAddress } from '@perp/contracts';
import {
  ForceOrderRepository,
  InsuranceMovementRepository,
  openTestDatabase,
  ProcessedOffsetRepository,
  type TestDatabase,
} from '@perp/persistence';
import type { AppConfig } from '@perp/runtime';
import { HistoryProjector } from './history-projector';

const ALICE = '0x' + 'a1'.repeat(20);
const BOB = '0x' + 'b2'.repeat(20);
const RISK = TOPICS.riskCommands.name;

/** An account event as risk publishes it: the id names the risk input (partition, offset, index). */
function event(body: Record<string, unknown>, partition: number, offset: number, index = 0): AccountEvent {
  return {
    ...body,
    id: outputId(RISK, partition, String(offset), index),
    v: 1,
    time: 1_000 + offset,
  } as AccountEvent;
}

const forceOrder = (user: string, type: 'LIQUIDATION' | 'ADL', orderId: string, time: number) => ({
  type: 'forceOrder',
  user,
  forceOrder: {
    orderId,
    symbol: 'BTCUSDT',
    autoCloseType: type,
    side: type === 'ADL' ? 'BUY' : 'SELL',
    price: '49000.5',
    avgPrice: type === 'ADL' ? '49000.5' : '49100',
    origQty: '0.010',
    executedQty: '0.010',
    fee: type === 'ADL' ? '0' : '4.91',
    time,
    updateTime: time + 1,
  },
});

const insurance = (partition: number, kind: string, amount: string, balance: string) => ({
  type: 'insurance',
  partition,
  symbol: 'BTCUSDT',
  kind,
  amount,
  balance,
  ref: `liq-${partition}-${balance}`,
});

let offset = 0;
const message = (value: AccountEvent, partition = 0): BusMessage => ({
  topic: TOPICS.accountEvents.name,
  partition,
  offset: String(offset++),
  key: 'k',
  value,
  headers: {},
  timestamp: 0,
});

describe('HistoryProjector: force orders and insurance movements (real Postgres)', () => {
  let db: TestDatabase;
  let projector: HistoryProjector;

  beforeAll(async () => {
    db = await openTestDatabase();
    const marks = new ProcessedOffsetRepository(db.dataSource.manager);
    projector = new HistoryProjector({} as Bus, marks, { HISTORY_BATCH_MS: 0 } as AppConfig);
  });
  afterAll(() => db?.close());

  it('writes force orders (both kinds) and movements once, however often a turn is delivered', async () => {
    const events = [
      event(forceOrder(ALICE, 'LIQUIDATION', 'liq-1', 5_000), 3, 10),
      event(forceOrder(BOB, 'ADL', 'adl-1', 5_000), 7, 4),
      event(insurance(3, 'LIQUIDATION_FEE', '4.91', '104.91'), 3, 10, 1),
      event(insurance(3, 'BANKRUPTCY_LOSS', '-1.5', '103.41'), 3, 12),
      event(insurance(7, 'FUNDING_DUST', '0.00000001', '0.00000001'), 7, 2),
      // Not history: skipped without failing the turn.
      event({ type: 'marginCall', user: ALICE, crossWalletBalance: '1', positions: [] }, 3, 9),
    ];
    const turn = events.map((e) => message(e));
    await projector.handleTurn(turn);
    // The same events again (a redelivery after a crash, at new offsets of a replayed producer).
    await projector.handleTurn(events.map((e) => message(e)));

    const forces = new ForceOrderRepository(db.dataSource.manager);
    const alice = await forces.listByUser(userIdForAddress(ALICE));
    expect(alice).toEqual([
      {
        id: expect.any(String),
        userId: userIdForAddress(ALICE),
        orderId: 'liq-1',
        symbol: 'BTCUSDT',
        autoCloseType: 'LIQUIDATION',
        side: 'SELL',
        price: '49000.5',
        avgPrice: '49100',
        origQty: '0.010',
        executedQty: '0.010',
        fee: '4.91',
        time: 5_000,
        updateTime: 5_001,
      },
    ]);
    expect(await forces.listByUser(userIdForAddress(BOB), { autoCloseType: 'LIQUIDATION' })).toEqual([]);
    expect((await forces.listBySymbol('BTCUSDT', 'ADL')).map((f) => f.orderId)).toEqual(['adl-1']);

    const fund = new InsuranceMovementRepository(db.dataSource.manager);
    // Partition 3's latest is the movement of its later input (offset 12), not the earlier one.
    expect(await fund.latestShares()).toEqual([
      { partition: 3, balance: '103.41', time: 1_012 },
      { partition: 7, balance: '0.00000001', time: 1_002 },
    ]);
    const page = await fund.page({ page: 1, limit: 2 });
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => [r.partition, r.kind, r.amount, r.sourceOffset, r.sourceIndex])).toEqual([
      [3, 'BANKRUPTCY_LOSS', '-1.5', '12', 0],
      [3, 'LIQUIDATION_FEE', '4.91', '10', 1],
    ]);
    expect((await fund.page({ page: 2, limit: 2 })).rows.map((r) => r.kind)).toEqual(['FUNDING_DUST']);
  });
});
