import type { EngineEvent, MessageBody } from '@perp/contracts';
import { INSURANCE_FUND } from '@perp/domain';
import { copy, trade } from './__fixtures__/engine-events';
import {
  ALICE,
  BOB,
  bookFill,
  deposit,
  markPrice,
  oid,
  riskHarness,
  T0,
  tid,
} from './__fixtures__/risk-context';

/** Marks also send the positions' ADL scores (adl-scores.spec.ts); not the subject here. */
const notScores = (c: { type: string }) => c.type !== 'adl.scores';

/**
 * ALICE long 0.01 BTCUSDT at 60000 on 100 (wallet 99.88), liquidated at mark 50200: bankruptcy
 * 50012. BOB 1000, short 0.01 at 60000 (the ADL counterparty).
 */
function liquidated() {
  const h = riskHarness();
  h.run(deposit(ALICE, '100'));
  h.run(deposit(BOB, '1000'));
  h.run(markPrice('60000'));
  bookFill(h, ALICE, 'BUY', '0.01', 1);
  bookFill(h, BOB, 'SELL', '0.01', 2);
  const place = h.run(markPrice('50200')).engineCommands.filter(notScores)[0];
  if (place?.type !== 'liquidation.place') throw new Error('not liquidated');
  return { h, id: place.liquidationId };
}

/** A trade of the liquidation `id`: ALICE (taker) sells 0.01 at `price` to BOB's order 101. */
const liqTrade = (id: string, price: string, kind: 'LIQUIDATION' | 'ADL' = 'LIQUIDATION', n = 3) => ({
  ...trade(
    { user: BOB, orderId: oid(101), side: 'BUY', close: '0.01' },
    { user: ALICE, orderId: id, side: 'SELL', close: '0.01' },
    price,
    '0.01',
    n,
  ),
  kind,
});

const done = (id: string, filledQty: string, avgPrice: string): MessageBody<EngineEvent> => ({
  type: 'liquidation.done',
  symbol: 'BTCUSDT',
  seq: 9,
  liquidationId: id,
  user: ALICE,
  side: 'SELL',
  quantity: '0.01',
  filledQty,
  avgPrice,
  adlQty: '0',
  unfilledQty: '0',
  bankruptcyPrice: '50012',
});

describe('liquidation trades in the risk shard', () => {
  it('the liquidated taker: no commission, the clearance fee capped by what is left, to the insurance share', () => {
    const { h, id } = liquidated();
    const out = h.run(copy(liqTrade(id, '50100'), 20, 1, 'TAKER'));
    // PnL 0.01 x (50100 - 60000) = -99: 0.88 left; fee 0.01 x 50100 x 1.25 % = 6.2625 capped to 0.88
    expect(out.accountEvents).toEqual([
      {
        type: 'insurance',
        partition: 0,
        symbol: 'BTCUSDT',
        kind: 'LIQUIDATION_FEE',
        amount: '0.88',
        balance: '0.88',
        ref: tid(3),
      },
      {
        type: 'trade',
        user: ALICE,
        trade: expect.objectContaining({ orderId: id, commission: '0', realizedPnl: '-99', maker: false }),
      },
      expect.objectContaining({ type: 'income', incomeType: 'REALIZED_PNL', income: '-99', tradeId: tid(3) }),
      expect.objectContaining({
        type: 'income',
        incomeType: 'INSURANCE_CLEAR',
        income: '-0.88',
        tradeId: tid(3),
      }),
      { type: 'position', user: ALICE, symbol: 'BTCUSDT', size: '0', entryPrice: '0', leverage: 20 },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '0', frozen: '0' },
    ]);
    // still in flight: the fill does not liquidate again
    expect(out.engineCommands.filter(notScores)).toEqual([]);
    expect(h.p.liquidations.get(id)).toMatchObject({ fee: '0.88', executedQty: '0.01', cumQuote: '501' });
  });

  it('the maker of a liquidation trade pays its usual fee', () => {
    const { h, id } = liquidated();
    const out = h.run(copy(liqTrade(id, '50100'), 20, 0, 'MAKER'));
    // BOB closes his short: 0.01 x 50100 x 0.02 %
    expect(out.accountEvents[0]).toMatchObject({ type: 'trade', user: BOB, trade: { commission: '0.1002' } });
  });

  it('a close beyond the bankruptcy price: the insurance share pays the wallet back to zero', () => {
    const { h, id } = liquidated();
    const out = h.run(copy(liqTrade(id, '50000'), 20, 1, 'TAKER'));
    // PnL -100 on 99.88: -0.12
    expect(out.accountEvents.filter((e) => e.type === 'insurance')).toEqual([
      {
        type: 'insurance',
        partition: 0,
        symbol: 'BTCUSDT',
        kind: 'BANKRUPTCY_LOSS',
        amount: '-0.12',
        balance: '-0.12',
        ref: tid(3),
      },
    ]);
    expect(h.book.account(ALICE).walletBalance.toFixed()).toBe('0');
    expect(h.book.ledger.balance(INSURANCE_FUND).toFixed()).toBe('-0.12');
  });

  it('ADL: neither side pays a fee; the counterparty gets a force order ADL', () => {
    const { h, id } = liquidated();
    const maker = h.run(copy(liqTrade(id, '50012', 'ADL'), 20, 0, 'MAKER'));
    expect(maker.accountEvents[0]).toEqual({
      type: 'forceOrder',
      user: BOB,
      forceOrder: {
        orderId: oid(101),
        symbol: 'BTCUSDT',
        autoCloseType: 'ADL',
        side: 'BUY',
        price: '50012',
        avgPrice: '50012',
        origQty: '0.01',
        executedQty: '0.01',
        fee: '0',
        time: T0,
        updateTime: T0,
      },
    });
    // BOB's short closed at 50012: +99.88, no commission
    expect(maker.accountEvents[1]).toMatchObject({
      type: 'trade',
      trade: { commission: '0', realizedPnl: '99.88' },
    });
  });

  it('liquidation.done: the force order, the LIQUIDATION order record, out of flight, checked again', () => {
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

  it('a step that leaves the account liquidatable is followed by the next once done', () => {
    const { h, id } = liquidated();
    // nothing filled: the position is still there and under maintenance
    const out = h.run(copy(done(id, '0', '0'), 20, 5));
    expect(h.p.record(id)).toMatchObject({ status: 'CANCELED', executedQty: '0.000' });
    expect(out.engineCommands.filter(notScores)).toMatchObject([
      { type: 'liquidation.place', quantity: '0.01', bankruptcyPrice: '50012', origin: { index: 0 } },
    ]);
    expect(h.p.liquidations.size).toBe(1);
  });
});

describe('funding dust', () => {
  it('what a funding round leaves in the insurance share is an insurance event', () => {
    const h = riskHarness();
    h.run(deposit(ALICE, '1000'));
    bookFill(h, ALICE, 'BUY', '0.01', 1);
    const out = h.run({
      id: 'funding/BTCUSDT/1',
      v: 1,
      time: T0,
      type: 'funding.settle',
      symbol: 'BTCUSDT',
      fundingRate: '0.0001',
      markPrice: '60000',
      fundingTime: T0 + 1,
    });
    expect(out.accountEvents[out.accountEvents.length - 1]).toEqual({
      type: 'insurance',
      partition: 0,
      symbol: 'BTCUSDT',
      kind: 'FUNDING_DUST',
      amount: '0.06',
      balance: '0.06',
      ref: 'funding/BTCUSDT/1',
    });
  });
});
