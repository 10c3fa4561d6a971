import type { Bus, BusMessage } from '@perp/bus';
import type { EngineEvent } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { EngineShard, type OrderCommand } from './engine-shard';
import { LEAVE_REMAINDER, type LiquidationCommand, type LiquidationRemainder } from './liquidation-order';
import { placeCommand } from './__fixtures__/commands';
import { ALICE, BOB, BTC } from './__fixtures__/markets';

const TOPIC = 'perp.engine.commands.v1';
const CAROL = `0x${'c'.repeat(40)}`;
const LIQ_ID = '22222222-2222-4222-8222-000000000001';
const T = 1_700_000_000_000;

const at = (offset: number): BusMessage =>
  ({
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    key: 'BTCUSDT',
    headers: {},
    value: null,
  }) as BusMessage;

let n = 0;
const place = (user: string, side: 'BUY' | 'SELL', price: string, quantity: string) =>
  placeCommand(++n, user, side, price, quantity, { time: T });

function liquidation(fields: Partial<LiquidationCommand> = {}): LiquidationCommand {
  return {
    id: 'liq-1',
    v: 1,
    time: T + 1,
    type: 'liquidation.place',
    liquidationId: LIQ_ID,
    user: ALICE,
    symbol: 'BTCUSDT',
    side: 'SELL',
    quantity: '1',
    bankruptcyPrice: '9000',
    limitPrice: '9000',
    markPrice: '9050',
    marginMode: 'CROSS',
    origin: { partition: 3, offset: '17', index: 1 },
    ...fields,
  };
}

/** ALICE long 1 BTC at 10000 (from BOB), then resting bids of CAROL at 9050 (0.4) and 9000 (0.3), 8990 (5). */
function setup() {
  const shard = new EngineShard({} as Bus, new MarketRegistry([BTC]));
  // The book's part alone: the ADL of the remainder is engine-adl.spec.ts's.
  shard.liquidationRemainder = LEAVE_REMAINDER;
  let offset = 0;
  const run = (cmd: OrderCommand) => shard.apply(at(offset++), cmd)!;
  run(place(BOB, 'SELL', '10000', '1'));
  run(place(ALICE, 'BUY', '10000', '1'));
  run(place(CAROL, 'BUY', '9050', '0.4'));
  run(place(CAROL, 'BUY', '9000', '0.3'));
  run(place(CAROL, 'BUY', '8990', '5'));
  const liquidate = (cmd: LiquidationCommand) => shard.applyLiquidation(at(offset++), cmd);
  return { shard, liquidate, offset: () => offset };
}

const ofType = <K extends EngineEvent['type']>(events: EngineEvent[], type: K) =>
  events.filter((e): e is Extract<EngineEvent, { type: K }> => e.type === type);

describe('liquidation order (engine)', () => {
  it('an IOC at the limit or better: trades of kind LIQUIDATION, then liquidation.done with the rest unfilled', () => {
    const { shard, liquidate } = setup();
    const out = liquidate(liquidation())!;
    const trades = ofType(out.events, 'trade');
    expect(trades.map((t) => [t.price, t.qty, t.kind, t.taker.orderId, t.taker.user, t.maker.user])).toEqual([
      ['9050.0', '0.400', 'LIQUIDATION', LIQ_ID, ALICE, CAROL],
      ['9000.0', '0.300', 'LIQUIDATION', LIQ_ID, ALICE, CAROL],
    ]);
    // the taker's split: all of it closes ALICE's long
    expect(trades[0].taker.split).toEqual({ open: '0.000', close: '0.400' });
    const done = out.events[out.events.length - 1];
    expect(done).toEqual({
      v: 1,
      id: `${TOPIC}/0/5/${out.events.length - 1}`,
      time: T + 1,
      type: 'liquidation.done',
      symbol: 'BTCUSDT',
      seq: shard.book('BTCUSDT')!.seq,
      liquidationId: LIQ_ID,
      user: ALICE,
      side: 'SELL',
      quantity: '1',
      filledQty: '0.700',
      // (0.4 x 9050 + 0.3 x 9000) / 0.7
      avgPrice: '9028.57142857',
      adlQty: '0.000',
      unfilledQty: '0.3',
      bankruptcyPrice: '9000',
    });
    expect(ofType(out.events, 'command.result')).toEqual([]);
    // ALICE (user 2 in the book) has 0.3 left
    expect(shard.book('BTCUSDT')!.position(2)).toBe(300);
    expect(out.reply).toEqual({
      ok: true,
      result: { liquidationId: LIQ_ID, filledQty: '0.700', adlQty: '0.000' },
    });
  });

  it('reduce-only: never more than the position, even with liquidity left', () => {
    const { liquidate } = setup();
    const out = liquidate(liquidation({ quantity: '3', limitPrice: '8990' }))!;
    const filled = ofType(out.events, 'trade').reduce((s, t) => s + Number(t.qty), 0);
    expect(filled).toBeCloseTo(1, 9);
    expect(out.events[out.events.length - 1]).toMatchObject({ filledQty: '1.000', unfilledQty: '2' });
  });

  it('the remainder hook gets what the book left, capped by the position, and its events come before done', () => {
    const calls: number[] = [];
    const hook: LiquidationRemainder = ({ remainingLots, eventId }) => {
      calls.push(remainingLots);
      return {
        lots: remainingLots,
        events: [
          {
            v: 1,
            id: eventId(0),
            time: T,
            type: 'market.status',
            symbol: 'BTCUSDT',
            seq: 0,
            status: 'TRADING',
          },
        ],
      };
    };
    const shard = new EngineShard({} as Bus, new MarketRegistry([BTC]));
    shard.liquidationRemainder = hook;
    let offset = 0;
    for (const c of [
      place(BOB, 'SELL', '10000', '1'),
      place(ALICE, 'BUY', '10000', '1'),
      place(CAROL, 'BUY', '9000', '0.25'),
    ])
      shard.apply(at(offset++), c);
    const out = shard.applyLiquidation(at(offset), liquidation({ quantity: '2' }))!;
    expect(calls).toEqual([750]);
    const types = out.events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['market.status', 'liquidation.done']);
    expect(out.events.map((e) => e.id)).toEqual(out.events.map((_, i) => `${TOPIC}/0/3/${i}`));
    expect(out.events[out.events.length - 1]).toMatchObject({
      filledQty: '0.250',
      adlQty: '0.750',
      unfilledQty: '1',
    });
  });

  it('no liquidity at the limit: nothing filled, all of it unfilled', () => {
    const { liquidate } = setup();
    const out = liquidate(liquidation({ limitPrice: '9100' }))!;
    expect(ofType(out.events, 'trade')).toEqual([]);
    expect(out.events[out.events.length - 1]).toMatchObject({
      filledQty: '0.000',
      avgPrice: '0',
      unfilledQty: '1',
    });
  });

  it('no position: refused by the book as reduce-only, still ends with liquidation.done', () => {
    const { liquidate } = setup();
    const out = liquidate(liquidation({ user: CAROL }))!;
    expect(ofType(out.events, 'order.rejected')).toMatchObject([
      { reason: 'REDUCE_ONLY_REJECTED', user: CAROL },
    ]);
    expect(out.events[out.events.length - 1]).toMatchObject({ type: 'liquidation.done', filledQty: '0.000' });
  });

  it('applied once: the same origin again (a risk replay) or the same offset is skipped', () => {
    const { shard, liquidate, offset } = setup();
    expect(liquidate(liquidation())).toBeDefined();
    expect(liquidate(liquidation())).toBeUndefined();
    expect(
      shard.applyLiquidation(at(offset() - 2), liquidation({ origin: { partition: 3, offset: '18' } })),
    ).toBeUndefined();
  });

  it('an unknown market is refused without events', () => {
    const { liquidate } = setup();
    const out = liquidate(liquidation({ symbol: 'DOGEUSDT' }))!;
    expect(out.events).toEqual([]);
    expect(out.reply).toMatchObject({ ok: false, error: { reason: 'INVALID_SYMBOL' } });
  });
});
