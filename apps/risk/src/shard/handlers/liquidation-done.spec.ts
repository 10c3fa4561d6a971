import { copy, trade } from './__fixtures__/engine-events';
import { done, liqTrade, liquidated } from './__fixtures__/liquidations';
import { ALICE, BOB, bookFill, deposit, markPrice, oid, riskHarness, T0 } from './__fixtures__/risk-context';

describe('liquidation.done in the risk shard', () => {
  it('the force order, the LIQUIDATION order record, out of flight, checked again', () => {
    const { h, id } = liquidated();
    h.run(copy(liqTrade(id, '50100'), 20, 1, 'TAKER'));
    const out = h.run(copy(done(id, '0.010', '50100'), 20, 5));
    const record = h.p.record(id);
    expect(out.accountEvents).toEqual([
      {
        type: 'forceOrder',
        user: ALICE,
        forceOrder: {
          orderId: id,
          symbol: 'BTCUSDT',
          autoCloseType: 'LIQUIDATION',
          side: 'SELL',
          price: '50012.0',
          avgPrice: '50100',
          origQty: '0.010',
          executedQty: '0.010',
          fee: '0.88',
          time: T0,
          updateTime: T0,
        },
      },
      { type: 'order', user: ALICE, order: record },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '0', frozen: '0' },
    ]);
    expect(record).toMatchObject({
      status: 'FILLED',
      type: 'LIQUIDATION',
      origType: 'LIQUIDATION',
      timeInForce: 'IOC',
      reduceOnly: true,
      price: '50012.0',
      executedQty: '0.010',
      cumQuote: '501',
    });
    expect(out.closed).toEqual([record]);
    expect(h.p.liquidations.size).toBe(0);
    // applied once: a second copy of the same done changes nothing
    expect(h.run(copy(done(id, '0.010', '50100'), 20, 5)).accountEvents).toEqual([]);
  });

  it('a step that closed part and left the account liquidatable is followed by the next once done', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '100'));
    h.run(markPrice('60000'));
    bookFill(h, ALICE, 'BUY', '0.02', 1);
    // wallet 99.76 on 0.02 at 60000: bankruptcy (1200 - 99.76) / 0.02 = 55012
    const place = h.run(markPrice('55200')).engineCommands[0];
    if (place?.type !== 'liquidation.place') throw new Error('not liquidated');
    const id = place.liquidationId;
    const half = {
      ...trade(
        { user: BOB, orderId: oid(101), side: 'BUY' },
        { user: ALICE, orderId: id, side: 'SELL', close: '0.01' },
        '55100',
        '0.01',
        3,
      ),
      kind: 'LIQUIDATION' as const,
    };
    h.run(copy(half, 20, 1, 'TAKER'));
    const out = h.run(copy(done(id, '0.010', '55100', { quantity: '0.02', unfilledQty: '0.01' }), 20, 5));
    expect(h.p.record(id)).toMatchObject({ status: 'CANCELED', executedQty: '0.010' });
    // PnL -49: wallet 50.76, margin balance 50.76 - 48 = 2.76 caps the fee (6.8875): wallet 48 on
    // 0.01 at 60000, bankruptcy (600 - 48) / 0.01 = 55200
    expect(h.p.liquidations.get(id)).toBeUndefined();
    expect(out.engineCommands).toMatchObject([
      { type: 'liquidation.place', quantity: '0.01', bankruptcyPrice: '55200', origin: { index: 0 } },
    ]);
    expect(h.p.liquidations.size).toBe(1);
  });

  it('a step that closed nothing waits for the next mark (no loop through the engine)', () => {
    const { h, id } = liquidated();
    const out = h.run(copy(done(id, '0', '0'), 20, 5));
    expect(h.p.record(id)).toMatchObject({ status: 'CANCELED', executedQty: '0.000' });
    expect(out.engineCommands).toEqual([]);
    expect(h.p.liquidations.size).toBe(0);
    // (the mark also sends the positions' ADL scores, adl-scores.spec.ts)
    expect(h.run(markPrice('50150')).engineCommands.filter((c) => c.type !== 'adl.scores')).toMatchObject([
      { type: 'liquidation.place' },
    ]);
  });
});

describe('margin call after a liquidation', () => {
  it('a closed position ends its margin call: the next crossing calls again', () => {
    const { h, id } = liquidated();
    expect(h.p.marginCalls.has(ALICE)).toBe(true);
    h.run(copy(liqTrade(id, '50100'), 20, 1, 'TAKER'));
    expect(h.p.marginCalls.has(ALICE)).toBe(false);
    h.run(copy(done(id, '0.010', '50100'), 20, 5));
    h.run(deposit(ALICE, '100', 'dep-2'));
    h.run(markPrice('60000'));
    bookFill(h, ALICE, 'BUY', '0.01', 7);
    expect(h.run(markPrice('50250')).accountEvents.map((e) => e.type)).toEqual(['marginCall']);
  });
});

describe('liquidation replay', () => {
  it('a partition restored mid-liquidation goes on exactly as the running one: same ids, same effects', () => {
    const { h, id } = liquidated();
    const restored = h.restored();
    const inputs = [
      copy(liqTrade(id, '50100'), 20, 1, 'TAKER'),
      markPrice('50000'),
      copy(done(id, '0.010', '50100'), 20, 5),
      copy(done(id, '0.010', '50100'), 20, 5),
    ];
    const a = inputs.map((i) => h.run(i));
    const b = inputs.map((i) => restored.run(i));
    expect(b.map((o) => [o.engineCommands, o.accountEvents])).toEqual(
      a.map((o) => [o.engineCommands, o.accountEvents]),
    );
    expect(restored.p.serialize().equals(h.p.serialize())).toBe(true);
    expect(a[2]!.accountEvents.map((e) => e.type)).toEqual(['forceOrder', 'order', 'balance']);
  });
});
