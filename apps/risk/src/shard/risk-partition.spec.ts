import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALICE, chain, devnetMarkets } from './handlers/__fixtures__/risk-context';
import { RiskPartition } from './risk-partition';

describe('RiskPartition snapshot', () => {
  // Written by the risk shard before the high-water marks became one class (an open order, two marks).
  const stored = readFileSync(join(__dirname, '__fixtures__', 'risk-snapshot-v2.json'));
  const markets = devnetMarkets();
  const options = {
    feeTiers: chain.feeTiers,
    asset: chain.settlementAsset,
  };

  it('restores a stored version 2 snapshot: accounts, open orders and engine marks', () => {
    const p = RiskPartition.deserialize(0, stored, markets, options);
    expect(p.book.account(ALICE).walletBalance.toFixed()).toBe('1000');
    expect(p.openOrdersOf(ALICE).map((o) => o.clientOrderId)).toEqual(['c1']);
    expect(p.engineMarks.isNew(1, 42n, 3)).toBe(false);
    expect(p.engineMarks.isNew(1, 42n, 4)).toBe(true);
    expect(p.engineMarks.isNew(0, 7n, 0)).toBe(false);
    expect(p.engineMarks.isNew(0, 8n, 0)).toBe(true);
    expect(p.engineMarks.isNew(2, 0n, 0)).toBe(true);
  });

  it('writes back what it read, as version 5 with no algo orders, liquidations, margin calls or market states', () => {
    const p = RiskPartition.deserialize(0, stored, markets, options);
    p.lastOffset = 2n;
    expect(JSON.parse(p.serialize().toString('utf8'))).toEqual({
      ...(JSON.parse(stored.toString('utf8')) as object),
      v: 5,
      closed: [],
      algos: { live: [], ended: [] },
    });
  });

  it('keeps the recently closed orders: a restored partition refuses a closed order id as the running one does', () => {
    const running = RiskPartition.deserialize(0, stored, markets, options);
    const [open] = running.openOrdersOf(ALICE);
    running.close({ ...open!, status: 'FILLED' });
    running.lastOffset = 3n;
    const restored = RiskPartition.deserialize(0, running.serialize(), markets, options);
    // Before the fix: undefined, so a duplicate New Order with this id was accepted after a restore.
    expect(restored.record(open!.orderId)).toEqual({ ...open, status: 'FILLED' });
    expect(restored.openOrdersOf(ALICE)).toEqual([]);
    restored.lastOffset = 3n;
    expect(restored.serialize().equals(running.serialize())).toBe(true);
  });

  it('keeps the last thousand closed records, the oldest closed first out; closing one again keeps its place', () => {
    const running = RiskPartition.deserialize(0, stored, markets, options);
    const [open] = running.openOrdersOf(ALICE);
    const id = (n: number) => `closed-${n}`;
    const closeNo = (n: number) => running.close({ ...open!, orderId: id(n), status: 'CANCELED' });
    for (let n = 1; n <= 1_000; n++) closeNo(n);
    closeNo(1); // already kept: stays the oldest
    closeNo(1_001);
    expect(running.record(id(1))).toBeUndefined();
    expect(running.record(id(2))?.status).toBe('CANCELED');
    // Many evictions later (the ids kept in order are compacted on the way).
    for (let n = 1_002; n <= 3_500; n++) closeNo(n);
    running.lastOffset = 3n;
    const kept = (JSON.parse(running.serialize().toString('utf8')) as { closed: { orderId: string }[] })
      .closed;
    expect(kept.map((r) => r.orderId)).toEqual(Array.from({ length: 1_000 }, (_, i) => id(2_501 + i)));
    expect(running.record(id(2_500))).toBeUndefined();
    // A restored partition evicts the same ones next.
    const restored = RiskPartition.deserialize(0, running.serialize(), markets, options);
    for (const p of [running, restored]) {
      p.close({ ...open!, orderId: id(3_501), status: 'CANCELED' });
      expect(p.record(id(2_501))).toBeUndefined();
      expect(p.record(id(2_502))).toBeDefined();
    }
    restored.lastOffset = 3n;
    expect(restored.serialize().equals(running.serialize())).toBe(true);
  });

  it('writes a replaced record as it is now, not as an earlier snapshot wrote it', () => {
    const running = RiskPartition.deserialize(0, stored, markets, options);
    const [open] = running.openOrdersOf(ALICE);
    running.lastOffset = 3n;
    const before = JSON.parse(running.serialize().toString('utf8')) as { orders: unknown[] };
    expect(before.orders).toEqual([open]);
    running.put({ ...open!, executedQty: '0.5', status: 'PARTIALLY_FILLED' });
    const restored = RiskPartition.deserialize(0, running.serialize(), markets, options);
    expect(restored.record(open!.orderId)).toMatchObject({ executedQty: '0.5', status: 'PARTIALLY_FILLED' });
    running.close({ ...open!, status: 'FILLED' });
    const closed = RiskPartition.deserialize(0, running.serialize(), markets, options);
    expect(closed.record(open!.orderId)?.status).toBe('FILLED');
    expect(closed.openOrdersOf(ALICE)).toEqual([]);
  });

  it('keeps the liquidations in flight, the margin calls and the account times across a restore', () => {
    const running = RiskPartition.deserialize(0, stored, markets, options);
    running.liquidations.set('l1', {
      liquidationId: 'l1',
      user: ALICE,
      symbol: 'BTCUSDT',
      marginMode: 'ISOLATED',
      side: 'SELL',
      quantity: '1',
      bankruptcyPrice: '9000',
      limitPrice: '9000',
      reserve: '0',
      time: 1,
      fee: '0',
      executedQty: '0',
      cumQuote: '0',
      updateTime: 1,
    });
    running.marginCalls.add(ALICE);
    running.accountTimes.set(ALICE, 1_700_000_000_123);
    const restored = RiskPartition.deserialize(0, running.serialize(), markets, options);
    expect(restored.accountTimes).toEqual(new Map([[ALICE, 1_700_000_000_123]]));
    expect(restored.liquidations).toEqual(running.liquidations);
    expect([...restored.marginCalls]).toEqual([ALICE]);
    expect(restored.inLiquidation(ALICE, 'BTCUSDT')).toBe(true);
    expect(restored.inLiquidation(ALICE, 'ETHUSDT')).toBe(false);
    expect(restored.inLiquidation(ALICE)).toBe(true);
  });
});
