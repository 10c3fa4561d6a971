import { engineEvent, trade as tradeBody } from './__fixtures__/engine-events';
import { ALICE, BOB, deposit, newOrder, oid, riskHarness, T0, tid } from './__fixtures__/risk-context';
import { command } from '../../bench/trading-stream';
import { settleFill } from './fill';

/** ALICE with 1000 USDT and order 1: LIMIT BUY 0.01 @ 60000 (30.15 frozen). */
function buying() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(newOrder(1));
  return h;
}
const trade = (...args: Parameters<typeof tradeBody>) => engineEvent(tradeBody(...args));
const bob = (n: number, side: 'BUY' | 'SELL') => ({ user: BOB, orderId: oid(100 + n), side });

describe('settleFill', () => {
  it('an opening fill: trade, commission income, FILLED record, position and balance events', () => {
    const h = buying();
    const ctx = h.context();
    settleFill(
      ctx,
      trade({ user: ALICE, orderId: oid(1), side: 'BUY' }, bob(1, 'SELL'), '60000', '0.01'),
      'MAKER',
    );
    const record = h.p.record(oid(1));
    expect(record).toMatchObject({
      status: 'FILLED',
      executedQty: '0.010',
      cumQuote: '600',
      avgPrice: '60000',
    });
    expect(ctx.out.accountEvents).toEqual([
      {
        type: 'trade',
        user: ALICE,
        trade: {
          tradeId: tid(1),
          orderId: oid(1),
          user: ALICE,
          symbol: 'BTCUSDT',
          side: 'BUY',
          price: '60000',
          qty: '0.01',
          quoteQty: '600',
          commission: '0.12',
          commissionAsset: 'USDT',
          realizedPnl: '0',
          maker: true,
          time: T0,
        },
      },
      {
        type: 'income',
        user: ALICE,
        symbol: 'BTCUSDT',
        incomeType: 'COMMISSION',
        income: '-0.12',
        asset: 'USDT',
        tradeId: tid(1),
        info: 'MAKER',
      },
      { type: 'order', user: ALICE, order: record },
      { type: 'position', user: ALICE, symbol: 'BTCUSDT', size: '0.01', entryPrice: '60000', leverage: 20 },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '999.88', frozen: '0' },
    ]);
    expect(ctx.out.closed).toEqual([record]);
    expect([...ctx.out.users]).toEqual([ALICE]);
    expect(h.p.openOrder(oid(1))).toBeUndefined();
    // 999.88 - position margin 600 / 20
    expect(h.book.balances(ALICE).availableBalance.toFixed()).toBe('969.88');
  });

  it('partial fills: PARTIALLY_FILLED and open with the rest of the margin, then FILLED and closed', () => {
    const h = buying();
    const first = h.context();
    // As taker, filled below its limit at two makers' prices.
    settleFill(
      first,
      trade(bob(1, 'SELL'), { user: ALICE, orderId: oid(1), side: 'BUY' }, '59990', '0.004', 1),
      'TAKER',
    );
    expect(h.p.openOrder(oid(1))).toMatchObject({
      status: 'PARTIALLY_FILLED',
      executedQty: '0.004',
      avgPrice: '59990',
    });
    expect(first.out.closed).toEqual([]);
    // 30.15 - 30.15 x 0.4
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('18.09');
    expect(first.out.accountEvents.find((e) => e.type === 'trade')).toMatchObject({
      trade: { commission: '0.11998', maker: false },
    });

    const second = h.context();
    settleFill(
      second,
      trade(bob(2, 'SELL'), { user: ALICE, orderId: oid(1), side: 'BUY' }, '60000', '0.006', 2),
      'TAKER',
    );
    const done = h.p.record(oid(1));
    // (239.96 + 360) / 0.01
    expect(done).toMatchObject({
      status: 'FILLED',
      executedQty: '0.010',
      cumQuote: '599.96',
      avgPrice: '59996',
    });
    expect(second.out.closed).toEqual([done]);
    expect(second.out.accountEvents.filter((e) => e.type !== 'trade' && e.type !== 'income')).toEqual([
      { type: 'order', user: ALICE, order: done },
      { type: 'position', user: ALICE, symbol: 'BTCUSDT', size: '0.01', entryPrice: '59996', leverage: 20 },
      // 1000 - 0.11998 - 0.18
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '999.70002', frozen: '0' },
    ]);
  });

  it('closing fills realize PnL against the entry and pay commission, down to a flat position', () => {
    const h = buying();
    settleFill(
      h.context(),
      trade({ user: ALICE, orderId: oid(1), side: 'BUY' }, bob(1, 'SELL'), '60000', '0.01'),
      'MAKER',
    );
    h.run(newOrder(2, { side: 'SELL', price: '61000' }));
    // Closing only: no margin frozen.
    expect(h.book.account(ALICE).frozenMargin().toFixed()).toBe('0');

    const partial = h.context();
    settleFill(
      partial,
      trade(
        bob(2, 'BUY'),
        { user: ALICE, orderId: oid(2), side: 'SELL', close: '0.004' },
        '61000',
        '0.004',
        2,
      ),
      'TAKER',
    );
    expect(partial.out.accountEvents).toEqual([
      expect.objectContaining({
        type: 'trade',
        trade: expect.objectContaining({ realizedPnl: '4', commission: '0.122', quoteQty: '244' }),
      }),
      expect.objectContaining({
        type: 'income',
        incomeType: 'REALIZED_PNL',
        income: '4',
        info: 'TAKER',
        tradeId: tid(2),
      }),
      expect.objectContaining({ type: 'income', incomeType: 'COMMISSION', income: '-0.122', info: 'TAKER' }),
      {
        type: 'order',
        user: ALICE,
        order: expect.objectContaining({ status: 'PARTIALLY_FILLED', executedQty: '0.004' }),
      },
      { type: 'position', user: ALICE, symbol: 'BTCUSDT', size: '0.006', entryPrice: '60000', leverage: 20 },
      // 999.88 + 4 - 0.122
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '1003.758', frozen: '0' },
    ]);

    const last = h.context();
    settleFill(
      last,
      trade(
        { user: ALICE, orderId: oid(2), side: 'SELL', close: '0.006' },
        bob(3, 'BUY'),
        '59000',
        '0.006',
        3,
      ),
      'MAKER',
    );
    // 0.006 x 59000 - 360 = -6; maker fee 354 x 0.0002
    expect(last.out.accountEvents.filter((e) => e.type === 'income')).toMatchObject([
      { incomeType: 'REALIZED_PNL', income: '-6', info: 'MAKER' },
      { incomeType: 'COMMISSION', income: '-0.0708' },
    ]);
    expect(last.out.accountEvents.slice(-2)).toEqual([
      { type: 'position', user: ALICE, symbol: 'BTCUSDT', size: '0', entryPrice: '0', leverage: 20 },
      { type: 'balance', user: ALICE, asset: 'USDT', walletBalance: '997.6872', frozen: '0' },
    ]);
    expect(last.out.closed).toMatchObject([{ orderId: oid(2), status: 'FILLED' }]);
    expect(h.book.positions(ALICE)).toEqual([]);
  });

  it('a fill of no order here (liquidation, ADL) moves the position and emits no order event', () => {
    const h = buying();
    const ctx = h.context();
    settleFill(
      ctx,
      trade({ user: ALICE, orderId: 'liquidation-1', side: 'SELL' }, bob(1, 'BUY'), '60000', '0.02'),
      'MAKER',
    );
    expect(ctx.out.accountEvents.map((e) => e.type)).toEqual(['trade', 'income', 'position', 'balance']);
    expect(ctx.out.accountEvents[2]).toMatchObject({ size: '-0.02', entryPrice: '60000' });
    expect(ctx.out.closed).toEqual([]);
    expect(h.p.openOrder(oid(1))?.status).toBe('NEW');
  });

  it('a replayed input (outputs on the log already) settles the same and leaves its commands and events out', () => {
    // Both sides open and close positions in turn, paying commissions (the replay benchmark's stream).
    const stream = [deposit(ALICE, '100000'), deposit(BOB, '100000')];
    for (let i = 0; i < 40; i++) stream.push(command(i));
    const recorded = riskHarness();
    const replayed = riskHarness();
    for (const c of stream) {
      const a = recorded.run(c);
      const b = replayed.run(c, { recording: false });
      expect([...b.users]).toEqual([...a.users]);
      expect(b.closed).toEqual(a.closed);
      // The engine commands and account events of a replayed input are on the log already.
      expect(b.engineCommands).toEqual([]);
      expect(b.accountEvents).toEqual([]);
      if (c.type === 'engine.event')
        expect(a.accountEvents.map((e) => e.type)).toEqual([
          'trade',
          'income',
          'order',
          'position',
          'balance',
        ]);
      if (c.type === 'order.new') {
        expect(a.engineCommands.map((e) => e.type)).toEqual(['order.place']);
        expect(a.accountEvents.map((e) => e.type)).toEqual(['order', 'balance']);
      }
    }
    expect(replayed.p.serialize().equals(recorded.p.serialize())).toBe(true);
    expect(replayed.book.balances(ALICE).walletBalance.toFixed()).not.toBe('100000');
  });

  it('throws on a trade of a market it does not know', () => {
    const h = buying();
    const t = trade({ user: ALICE, orderId: oid(1), side: 'BUY' }, bob(1, 'SELL'), '1', '1', 1, 'XRPUSDT');
    expect(() => settleFill(h.context(), t, 'MAKER')).toThrow(`trade ${tid(1)} of unknown market XRPUSDT`);
  });
});
