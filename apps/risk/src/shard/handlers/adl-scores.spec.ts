import { Money } from '@perp/domain';
import { RiskPartition } from '../risk-partition';
import {
  ALICE,
  BOB,
  bookFill,
  chain,
  deposit,
  devnetMarkets,
  markPrice,
  riskHarness,
  T0,
  tid,
  triggerOrder,
} from './__fixtures__/risk-context';

/** ALICE long 0.01 and BOB short 0.01 BTCUSDT at 60000 (maker fee 0.12 each: wallets 999.88). */
function holding() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(deposit(BOB, '1000'));
  bookFill(h, ALICE, 'BUY', '0.01', 1);
  bookFill(h, BOB, 'SELL', '0.01', 2);
  return h;
}

const scoresOf = (out: { engineCommands: unknown[] }) =>
  out.engineCommands.filter((c) => (c as { type: string }).type === 'adl.scores');

describe('ADL scores on a mark', () => {
  it("sends every open position's score on the symbol, sorted by user, as one adl.scores", () => {
    const h = holding();
    const out = h.run(markPrice('61000', 'BTCUSDT', T0 + 1000));
    // Mark 61000: notional 610, maintenance 610 x 0.004 = 2.44.
    // ALICE: PnL +10, margin balance 1009.88: 10 / 999.88 x 2.44 / 1009.88.
    // BOB: PnL -10, margin balance 989.88: (-10 / 999.88) / (2.44 / 989.88).
    expect(out.engineCommands).toEqual([
      {
        id: h.outId(0),
        v: 1,
        time: T0 + 1000,
        origin: { partition: 0, offset: h.last.offset, index: 0 },
        type: 'adl.scores',
        symbol: 'BTCUSDT',
        partition: 0,
        scores: [
          { user: ALICE, score: '0.000024164186191826' },
          { user: BOB, score: '-4.057372130557307033' },
        ],
      },
    ]);
  });

  it('sends nothing when the list is unchanged, again when it changes', () => {
    const h = holding();
    expect(scoresOf(h.run(markPrice('61000')))).toHaveLength(1);
    expect(scoresOf(h.run(markPrice('61000')))).toHaveLength(0);
    expect(scoresOf(h.run(markPrice('60500')))).toHaveLength(1);
    // Another symbol: nobody holds it, nothing was sent, nothing to send.
    expect(scoresOf(h.run(markPrice('3500', 'ETHUSDT')))).toHaveLength(0);
  });

  it('numbers its command after the triggers the same mark fired', () => {
    const h = holding();
    h.run(markPrice('60000'));
    h.run(triggerOrder(1, 'STOP_MARKET', 'BUY', '61000'));
    const out = h.run(markPrice('61500'));
    expect(out.engineCommands.map((c) => [c.type, 'origin' in c ? c.origin?.index : undefined])).toEqual([
      ['order.place', 0],
      ['adl.scores', 1],
    ]);
  });

  it('sends an empty list once when the last position closes', () => {
    const h = holding();
    h.run(markPrice('61000'));
    const close = (user: string, side: 'BUY' | 'SELL', n: number) =>
      h.book.settleFill({
        user,
        symbol: 'BTCUSDT',
        side,
        price: new Money('61000'),
        qty: new Money('0.01'),
        closeQty: new Money('0.01'),
        liquidity: 'MAKER',
        tradeId: tid(n),
        time: T0,
      });
    close(ALICE, 'SELL', 3);
    close(BOB, 'BUY', 4);
    expect(scoresOf(h.run(markPrice('61000')))).toMatchObject([{ scores: [] }]);
    expect(scoresOf(h.run(markPrice('61000')))).toHaveLength(0);
  });

  it('decides the same after a snapshot: the last list sent is partition state', () => {
    const h = holding();
    h.run(markPrice('61000'));
    const markets = devnetMarkets();
    const options = { feeTiers: chain.feeTiers, asset: 'USDT' };
    const restored = RiskPartition.deserialize(0, h.p.serialize(), markets, options);
    expect(restored.adlSent).toEqual(h.p.adlSent);
    expect(restored.adlSent.get('BTCUSDT')).toContain(ALICE);
  });
});
