import { deterministicUuid, type EngineCommand, outputId, TOPICS } from '@perp/contracts';
import { makerFillOfOrder1 } from './__fixtures__/engine-events';
import {
  ALICE,
  BOB,
  bookFill,
  cmd,
  deposit,
  markPrice,
  marketStatus,
  newOrder,
  riskHarness,
  T0,
  type RiskHarness,
} from './__fixtures__/risk-context';

/** Marks also send the positions' ADL scores (adl-scores.spec.ts); not the subject here. */
const notScores = (c: { type: string }) => c.type !== 'adl.scores';

const liquidationId = (h: RiskHarness, index: number) =>
  deterministicUuid(`liquidation:${outputId(TOPICS.riskCommands.name, 0, h.last.offset, index)}`);

/**
 * ALICE long 0.01 BTCUSDT at 60000 (maker fee 0.12) on `amount`, and a resting ETHUSDT bid
 * (0.01 @ 3000, 1.5075 frozen). With 100: margin balance 99.88 + 0.01 x (mark - 60000), maintenance
 * 0.004 x 0.01 x mark: liquidated at or below 50212.85, margin call at or below 50263.31;
 * bankruptcy (600 - 99.88) / 0.01 = 50012.
 */
function longAlice(amount = '100', mode?: 'ISOLATED') {
  const h = riskHarness();
  h.run(deposit(ALICE, amount));
  if (mode) h.run(cmd({ type: 'margin.mode', user: ALICE, mode }));
  h.run(markPrice('60000'));
  h.run(markPrice('3000', 'ETHUSDT'));
  bookFill(h, ALICE, 'BUY', '0.01', 1);
  expect(h.run(newOrder(2, { symbol: 'ETHUSDT', price: '3000' })).engineCommands).toHaveLength(1);
  return h;
}

const commands = (out: { engineCommands: EngineCommand[] }) =>
  out.engineCommands.filter(notScores).map((c) => c.type);

describe('margin check on marks', () => {
  it('a mark above the margin-call level: nothing', () => {
    const h = longAlice();
    const out = h.run(markPrice('50300'));
    expect(out.engineCommands.filter(notScores)).toEqual([]);
    expect(out.accountEvents).toEqual([]);
  });

  it('margin call once per crossing, with the cross wallet and the positions', () => {
    const h = longAlice();
    const out = h.run(markPrice('50250'));
    expect(out.engineCommands.filter(notScores)).toEqual([]);
    expect(out.accountEvents).toEqual([
      {
        type: 'marginCall',
        user: ALICE,
        crossWalletBalance: '99.88',
        positions: [
          {
            symbol: 'BTCUSDT',
            positionSide: 'LONG',
            positionAmt: '0.01',
            marginType: 'CROSSED',
            isolatedWallet: '0',
            markPrice: '50250',
            unrealizedPnl: '-97.5',
            maintMargin: '2.01',
          },
        ],
      },
    ]);
    expect(h.run(markPrice('50240')).accountEvents).toEqual([]);
    expect(h.run(markPrice('50300')).accountEvents).toEqual([]);
    expect(h.run(markPrice('50250')).accountEvents.map((e) => e.type)).toEqual(['marginCall']);
  });

  it('liquidatable: cancel the open orders of every symbol, then the liquidation order, kept in flight', () => {
    const h = longAlice();
    const out = h.run(markPrice('50200', 'BTCUSDT', T0 + 7));
    const origin = (index: number) => ({ partition: 0, offset: h.last.offset, index });
    expect(out.engineCommands.filter(notScores)).toEqual([
      {
        id: h.outId(0),
        v: 1,
        time: T0 + 7,
        origin: origin(0),
        type: 'order.cancelAll',
        user: ALICE,
        symbol: 'ETHUSDT',
      },
      {
        id: h.outId(1),
        v: 1,
        time: T0 + 7,
        origin: origin(1),
        type: 'liquidation.place',
        liquidationId: liquidationId(h, 1),
        user: ALICE,
        symbol: 'BTCUSDT',
        side: 'SELL',
        quantity: '0.01',
        bankruptcyPrice: '50012',
        limitPrice: '50012',
        markPrice: '50200',
        marginMode: 'CROSS',
      },
    ]);
    expect(out.accountEvents.map((e) => e.type)).toEqual(['marginCall']);
    expect([...h.p.liquidations.values()]).toMatchObject([
      { liquidationId: liquidationId(h, 1), user: ALICE, symbol: 'BTCUSDT', reserve: '0', time: T0 + 7 },
    ]);
    // in flight: the next marks send nothing
    expect(h.run(markPrice('50100')).engineCommands.filter(notScores)).toEqual([]);
  });

  it('the insurance share moves the limit, and what it may pay is reserved', () => {
    const h = longAlice();
    // BOB long 1 BTC pays 60000 x 0.001 = 60 of funding into the partition's insurance share, ALICE 0.6
    h.run(deposit(BOB, '100000'));
    bookFill(h, BOB, 'BUY', '1', 9);
    h.run(
      cmd({
        type: 'funding.settle',
        symbol: 'BTCUSDT',
        fundingRate: '0.001',
        markPrice: '60000',
        fundingTime: T0 + 1,
      }),
    );
    const out = h.run(markPrice('50200'));
    // bankruptcy (600 - 99.28) / 0.01 = 50072; limit 50072 - 60.6 / 0.01
    expect(out.engineCommands.filter(notScores)[1]).toMatchObject({
      bankruptcyPrice: '50072',
      limitPrice: '44012',
    });
    expect([...h.p.liquidations.values()][0]).toMatchObject({ reserve: '60.6' });
  });

  it('isolated: on its own margin, canceling only the symbol’s orders', () => {
    // margin 30 (600 / 20): bankruptcy (600 - 30) / 0.01 = 57000, liquidated at or below 57228.91
    const h = longAlice('100', 'ISOLATED');
    expect(h.run(markPrice('57300')).engineCommands.filter(notScores)).toEqual([]);
    const out = h.run(markPrice('57200'));
    expect(commands(out)).toEqual(['liquidation.place']);
    expect(out.engineCommands.filter(notScores)[0]).toMatchObject({
      marginMode: 'ISOLATED',
      bankruptcyPrice: '57000',
      quantity: '0.01',
      origin: { index: 0 },
    });
    expect(out.accountEvents).toMatchObject([
      { type: 'marginCall', positions: [{ marginType: 'ISOLATED', isolatedWallet: '30' }] },
    ]);
  });

  it('a market that is not trading is not liquidated in (its next mark after trading resumes is)', () => {
    const h = longAlice();
    h.run(marketStatus('HALT', 1));
    const out = h.run(markPrice('50200'));
    expect(out.engineCommands.filter(notScores)).toEqual([]);
    expect(out.accountEvents.map((e) => e.type)).toEqual(['marginCall']);
    h.run(marketStatus('TRADING', 2));
    expect(commands(h.run(markPrice('50190')))).toEqual(['order.cancelAll', 'liquidation.place']);
  });

  it('only holders of the marked symbol are checked', () => {
    const h = longAlice();
    // ETHUSDT marks do not move ALICE's BTCUSDT position
    expect(h.p.book.holders('ETHUSDT')).toEqual([]);
    h.p.book.setMarkPrice('BTCUSDT', h.p.book.markPrices('BTCUSDT')!.minus(10000));
    expect(h.run(markPrice('2900', 'ETHUSDT')).engineCommands.filter(notScores)).toEqual([]);
  });
});

describe('margin check on fills', () => {
  it('a fill that takes the account under maintenance liquidates it', () => {
    // 150 deposited; order 1 (BUY 0.01 @ 60000) fills at mark 50300: 0.02 long, cost 1200, wallet 149.76
    const h = riskHarness();
    h.run(deposit(ALICE, '150'));
    h.run(markPrice('60000'));
    bookFill(h, ALICE, 'BUY', '0.01', 1);
    h.run(newOrder(1));
    expect(h.run(markPrice('50300')).engineCommands.filter(notScores)).toEqual([]);
    const out = h.run(makerFillOfOrder1('0.01', 5));
    // bankruptcy (1200 - 149.76) / 0.02 = 52512
    expect(out.engineCommands.filter(notScores)).toMatchObject([
      { type: 'liquidation.place', quantity: '0.02', bankruptcyPrice: '52512', origin: { index: 0 } },
    ]);
  });
});
