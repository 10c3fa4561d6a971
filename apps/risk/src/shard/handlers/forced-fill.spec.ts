import { INSURANCE_FUND } from '@perp/domain';
import { copy } from './__fixtures__/engine-events';
import { liqTrade, liquidated } from './__fixtures__/liquidations';
import { ALICE, BOB, oid, T0, tid } from './__fixtures__/risk-context';

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
    expect(out.engineCommands).toEqual([]);
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
});
