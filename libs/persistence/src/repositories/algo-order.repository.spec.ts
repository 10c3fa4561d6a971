import { stableUuid } from '@perp/contracts';
import type { AlgoOrderEntity } from '../entities';
import { openTestDatabase, type TestDatabase } from '../testing/test-schema';
import { AlgoOrderRepository } from './algo-order.repository';

const ALICE = stableUuid('alice');
const BOB = stableUuid('bob');

function row(algoId: number, fields: Partial<AlgoOrderEntity> = {}): AlgoOrderEntity {
  return {
    algoId,
    userId: ALICE,
    symbol: 'BTCUSDT',
    clientAlgoId: `a${algoId}`,
    status: 'NEW',
    createdAt: 1_000 + algoId,
    updatedAt: 1_000 + algoId,
    record: JSON.stringify({ algoId }),
    ...fields,
  };
}

describe('AlgoOrderRepository (real Postgres)', () => {
  let db: TestDatabase;
  let algos: AlgoOrderRepository;

  beforeAll(async () => {
    db = await openTestDatabase({ poolSize: 2 });
    algos = new AlgoOrderRepository(db.dataSource.manager);
    await algos.upsertMany([
      row(1),
      row(2, { symbol: 'ETHUSDT' }),
      row(3, { clientAlgoId: 'same' }),
      row(4, { clientAlgoId: 'same' }),
      row(5, { userId: BOB }),
      row(9_007_199_254_740, { createdAt: 5_000 }),
    ]);
  });
  afterAll(() => db?.close());

  it('replaces a row by algoId (the projection replays idempotently)', async () => {
    await algos.upsertMany([row(1, { status: 'CANCELED', updatedAt: 2_000 })]);
    await algos.upsertMany([row(1, { status: 'CANCELED', updatedAt: 2_000 })]);
    expect(await algos.findForUser(ALICE, { algoId: 1 })).toMatchObject({
      status: 'CANCELED',
      updatedAt: 2_000,
    });
    expect(await algos.findForUser(BOB, { algoId: 1 })).toBeUndefined();
  });

  it('finds the newest with a client id', async () => {
    expect((await algos.findForUser(ALICE, { clientAlgoId: 'same' }))?.algoId).toBe(4);
  });

  it('lists one user and symbol in a createTime window, by algoId, from an id, paged', async () => {
    const list = (f: Partial<Parameters<AlgoOrderRepository['listByUser']>[1]> = {}) =>
      algos
        .listByUser(ALICE, { symbol: 'BTCUSDT', from: 0, to: 10_000, ...f })
        .then((r) => r.map((x) => x.algoId));
    expect(await list()).toEqual([1, 3, 4, 9_007_199_254_740]);
    expect(await list({ to: 1_003 })).toEqual([1, 3]);
    expect(await list({ fromId: 3, limit: 1 })).toEqual([3]);
    expect(await list({ offset: 1, limit: 2 })).toEqual([3, 4]);
  });
});
