import type { AlgoOrderRecord } from '@perp/contracts';
import { cancelAlgo, clockTick, newAlgo } from './__fixtures__/algo-orders';
import {
  ALICE,
  BOB,
  deposit,
  markPrice,
  type RiskHarness,
  riskHarness,
  T0,
} from './__fixtures__/risk-context';

const HOUR = 3_600_000;

/** ALICE and BOB with 1000 USDT each and a BTCUSDT mark of 60000. */
function funded(): RiskHarness {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  h.run(deposit(BOB, '1000'));
  h.run(markPrice('60000'));
  return h;
}

/** A STOP_MARKET BUY far above the mark (it rests), GTD until `until` unless GTC. */
function placeStop(h: RiskHarness, id: string, until: number | 'GTC', user = ALICE): AlgoOrderRecord {
  const timing = until === 'GTC' ? {} : { timeInForce: 'GTD' as const, goodTillDate: until };
  const out = h.run(
    { ...newAlgo(id, 'STOP_MARKET', 'BUY', { triggerPrice: '61000', ...timing }), user },
    { reply: true },
  );
  expect(out.reply).toMatchObject({ ok: true });
  return out.reply!.result as AlgoOrderRecord;
}

const statusOf = (h: RiskHarness, a: AlgoOrderRecord) => h.p.algos.find(a.user, a.algoId)?.algoStatus;

describe('clock.tick', () => {
  it('expires every GTD algo order due at the tick, of every user, in algo id order; later ones stay NEW', () => {
    const h = funded();
    const bobFirst = placeStop(h, 'b1', T0 + HOUR, BOB);
    const aliceSame = placeStop(h, 'a1', T0 + HOUR);
    const aliceEarlier = placeStop(h, 'a2', T0 + HOUR - 1);
    const aliceLater = placeStop(h, 'a3', T0 + 2 * HOUR);
    expect(h.p.triggers.size).toBe(4);

    const out = h.run(clockTick(T0 + HOUR));
    const expired = out.accountEvents.map((e) => (e.type === 'algoOrder' ? e.algo : undefined));
    expect(expired.map((a) => [a?.algoId, a?.user, a?.algoStatus])).toEqual([
      [bobFirst.algoId, BOB, 'EXPIRED'],
      [aliceSame.algoId, ALICE, 'EXPIRED'],
      [aliceEarlier.algoId, ALICE, 'EXPIRED'],
    ]);
    expect(out.engineCommands).toEqual([]);
    expect(statusOf(h, aliceLater)).toBe('NEW');
    expect(h.p.triggers.size).toBe(1);
    // The mark that would have fired them now fires only the one still live.
    expect(h.run(markPrice('61000', 'BTCUSDT', T0 + HOUR + 1)).engineCommands).toHaveLength(1);
    expect(statusOf(h, aliceLater)).toBe('TRIGGERED');
  });

  it('is decided by the time on the log: a tick before goodTillDate changes nothing, whatever the clock says', () => {
    const h = funded();
    const a = placeStop(h, 'a1', T0 + HOUR);
    for (const time of [T0, T0 + HOUR - 1]) {
      const out = h.run(clockTick(time));
      expect(out.accountEvents).toEqual([]);
      expect(out.engineCommands).toEqual([]);
      expect(out.reply).toBeUndefined();
    }
    expect(statusOf(h, a)).toBe('NEW');
    expect(h.p.triggers.size).toBe(1);
  });

  it('never expires GTC algo orders, nor GTD ones already canceled or triggered', () => {
    const h = funded();
    const gtc = placeStop(h, 'gtc', 'GTC');
    const canceled = placeStop(h, 'gone', T0 + HOUR);
    const fired = h.run(
      newAlgo('fired', 'STOP_MARKET', 'SELL', {
        triggerPrice: '59000',
        timeInForce: 'GTD',
        goodTillDate: T0 + HOUR,
      }),
      { reply: true },
    ).reply!.result as AlgoOrderRecord;
    expect(h.run(cancelAlgo({ algoId: canceled.algoId })).accountEvents).not.toEqual([]);
    expect(h.run(markPrice('59000', 'BTCUSDT', T0 + 1)).engineCommands).toHaveLength(1);
    expect(statusOf(h, fired)).toBe('TRIGGERED');

    const out = h.run(clockTick(T0 + 10 * HOUR));
    expect(out.accountEvents).toEqual([]);
    expect(statusOf(h, gtc)).toBe('NEW');
    expect(statusOf(h, canceled)).toBe('CANCELED');
    expect(statusOf(h, fired)).toBe('TRIGGERED');
  });

  it('a partition restored from its snapshot expires the same orders at the same tick', () => {
    const h = funded();
    placeStop(h, 'a1', T0 + HOUR);
    placeStop(h, 'a2', T0 + 2 * HOUR);
    const restored = h.restored();
    const tick = clockTick(T0 + HOUR);
    const live = h.run(tick).accountEvents;
    const replayed = restored.run(tick).accountEvents;
    expect(live).toHaveLength(1);
    expect(replayed).toEqual(live);
  });
});
