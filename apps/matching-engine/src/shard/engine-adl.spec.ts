import type { Bus, BusMessage } from '@perp/bus';
import { type EngineCommand, type EngineEvent, parseMessage } from '@perp/contracts';
import { BookMarketState, MarketRegistry } from '@perp/domain';
import { adlClose, adlOrderId, adlRemainder } from './adl-close';
import { applyAdlScores } from './adl-scores';
import { applyBookCommand } from './book-commands';
import { applyLiquidationOrder } from './liquidation-order';
import { EnginePartition } from './engine-partition';
import { EngineShard } from './engine-shard';
import { placeCommand } from './__fixtures__/commands';
import { BOB, BTC } from './__fixtures__/markets';

const TOPIC = 'perp.engine.commands.v1';
const CAROL = `0x${'c'.repeat(40)}`;
const DAVE = `0x${'d'.repeat(40)}`;
const LIQ = `0x${'e'.repeat(40)}`;
const LIQUIDATION_ID = '11111111-1111-4111-8111-111111111111';
type AdlScores = Extract<EngineCommand, { type: 'adl.scores' }>;
type Quantiles = Extract<EngineEvent, { type: 'adl.quantiles' }>;
type Trade = Extract<EngineEvent, { type: 'trade' }>;

const shardOf = () =>
  new EngineShard({ publish: () => Promise.resolve() } as unknown as Bus, new MarketRegistry([BTC]));

let offset = 0;
const next = (): BusMessage =>
  ({
    topic: TOPIC,
    partition: 0,
    offset: String(offset++),
    key: 'BTCUSDT',
    headers: {},
    value: null,
  }) as BusMessage;

let n = 0;
const place = (user: string, side: 'BUY' | 'SELL', price: string, quantity: string, reduceOnly = false) =>
  placeCommand(++n, user, side, price, quantity, { reduceOnly });

function scores(partition: number, list: [string, string][], originOffset: number): AdlScores {
  return {
    id: `s-${originOffset}`,
    v: 1,
    time: 1_700_000_000_500,
    type: 'adl.scores',
    symbol: 'BTCUSDT',
    partition,
    scores: list.map(([user, score]) => ({ user, score })),
    origin: { partition, offset: String(originOffset) },
  };
}

/** LIQ long 0.005 against CAROL short 0.002, DAVE short 0.002, BOB short 0.001 (all at 100). */
function withPositions(shard: EngineShard): void {
  shard.apply(next(), place(CAROL, 'SELL', '100', '0.002'));
  shard.apply(next(), place(DAVE, 'SELL', '100', '0.002'));
  shard.apply(next(), place(BOB, 'SELL', '100', '0.001'));
  shard.apply(next(), place(LIQ, 'BUY', '100', '0.005'));
}

describe('engine: adl.scores', () => {
  it('publishes the symbol quantiles when they change, ranked by score then address, unscored last', () => {
    const shard = shardOf();
    withPositions(shard);
    const out = shard.apply(
      next(),
      scores(
        1,
        [
          [CAROL, '0.5'],
          [DAVE, '2'],
          [LIQ, '-1'],
        ],
        10,
      ),
    );
    expect(out?.reply).toEqual({ ok: true, result: { symbol: 'BTCUSDT', partition: 1 } });
    expect(out?.events).toHaveLength(1);
    const q = out!.events[0] as Quantiles;
    expect(parseMessage('engineEvents', q)).toEqual(q);
    // Shorts: DAVE 2, CAROL 0.5, BOB none (last); the one long is first in its line.
    expect(q.short).toEqual([
      [DAVE, 5],
      [CAROL, 4],
      [BOB, 2],
    ]);
    expect(q.long).toEqual([[LIQ, 5]]);
    // The same list again changes nothing: no event.
    expect(
      shard.apply(
        next(),
        scores(
          1,
          [
            [CAROL, '0.5'],
            [DAVE, '2'],
            [LIQ, '-1'],
          ],
          11,
        ),
      )?.events,
    ).toEqual([]);
  });

  it('keeps one list per risk partition and replaces it; dedupes a replay by origin', () => {
    const shard = shardOf();
    withPositions(shard);
    shard.apply(next(), scores(1, [[CAROL, '0.5']], 10));
    const b = shard.apply(next(), scores(2, [[BOB, '3']], 20));
    expect((b?.events[0] as Quantiles).short).toEqual([
      [BOB, 5],
      [CAROL, 4],
      [DAVE, 2],
    ]);
    // Partition 1 now says CAROL scores nothing listed: its old entry is gone.
    const c = shard.apply(next(), scores(1, [[DAVE, '1']], 11));
    expect((c?.events[0] as Quantiles).short).toEqual([
      [BOB, 5],
      [DAVE, 4],
      [CAROL, 2],
    ]);
    // Risk partition 1 replays its input at offset 11: skipped.
    expect(shard.apply(next(), scores(1, [[CAROL, '9']], 11))).toBeUndefined();
  });

  it('keeps the scores and the last quantiles published across a snapshot', () => {
    const shard = shardOf();
    withPositions(shard);
    const p = (shard as unknown as { partitions: { get(n: number): EnginePartition } }).partitions.get(0);
    shard.apply(
      next(),
      scores(
        1,
        [
          [CAROL, '0.5'],
          [DAVE, '2'],
        ],
        10,
      ),
    );
    const restored = EnginePartition.deserialize(0, p.serialize());
    expect([...restored.adlOf('BTCUSDT').scores.get(1)!]).toEqual([
      [CAROL, '0.5'],
      [DAVE, '2'],
    ]);
    expect(restored.adlOf('BTCUSDT').quantiles).toBe(p.adlOf('BTCUSDT').quantiles);
  });

  it('refuses an unknown symbol', () => {
    const shard = shardOf();
    expect(shard.apply(next(), { ...scores(1, [], 1), symbol: 'ETHUSDT' })?.reply).toMatchObject({
      ok: false,
      error: { reason: 'INVALID_SYMBOL' },
    });
  });
});

describe('engine: ADL close', () => {
  function setup() {
    const shard = shardOf();
    withPositions(shard);
    const p = (shard as unknown as { partitions: { get(n: number): EnginePartition } }).partitions.get(0);
    const sb = p.books.get('BTCUSDT')!;
    const cmd: Extract<EngineCommand, { type: 'liquidation.place' }> = {
      id: 'liq',
      v: 1,
      time: 1_700_000_001_000,
      type: 'liquidation.place',
      liquidationId: LIQUIDATION_ID,
      user: LIQ,
      symbol: 'BTCUSDT',
      side: 'SELL',
      quantity: '0.005',
      bankruptcyPrice: '90',
      limitPrice: '90',
      markPrice: '91',
      marginMode: 'CROSS',
    };
    return { shard, p, sb, cmd, at: { topic: TOPIC, partition: 0, offset: '500' } };
  }

  it('closes the remainder against the opposite side in score order at the bankruptcy price', () => {
    const { shard, p, sb, cmd, at } = setup();
    shard.apply(
      next(),
      scores(
        1,
        [
          [CAROL, '0.5'],
          [DAVE, '2'],
        ],
        10,
      ),
    );
    const r = adlClose(
      p,
      sb,
      at,
      cmd,
      { liquidationId: LIQUIDATION_ID, user: LIQ, side: 'SELL', lots: 3, bankruptcyPrice: 900 },
      4,
    );
    expect(r.lots).toBe(3);
    const trades = r.events.filter((e): e is Trade => e.type === 'trade');
    expect(
      trades.map((t) => [t.kind, t.price, t.qty, t.maker.user, t.maker.orderId, t.taker.orderId]),
    ).toEqual([
      ['ADL', '90.0', '0.002', DAVE, adlOrderId(LIQUIDATION_ID, DAVE), LIQUIDATION_ID],
      ['ADL', '90.0', '0.001', CAROL, adlOrderId(LIQUIDATION_ID, CAROL), LIQUIDATION_ID],
    ]);
    for (const t of trades) {
      expect(t.taker).toMatchObject({ user: LIQ, side: 'SELL', split: { open: '0.000', close: t.qty } });
      expect(t.maker).toMatchObject({ side: 'BUY', split: { open: '0.000', close: t.qty } });
      expect(parseMessage('engineEvents', t)).toEqual(t);
    }
    expect(r.events.map((e) => e.id)).toEqual([`${TOPIC}/0/500/4`, `${TOPIC}/0/500/5`]);
    const book = sb.book;
    expect([LIQ, DAVE, CAROL, BOB].map((u) => book.position(p.userIds.get(u)!))).toEqual([2, 0, -1, -1]);
    expect(book.longOi).toBe(book.shortOi);
    // Nothing stays interned for these ids.
    expect(p.orderIds.has(LIQUIDATION_ID) || p.orderIds.has(adlOrderId(LIQUIDATION_ID, DAVE))).toBe(false);
  });

  it('ranks users without a score last, then by address, and never closes more than the positions', () => {
    const { p, sb, cmd, at } = setup();
    const r = adlClose(
      p,
      sb,
      at,
      cmd,
      { liquidationId: LIQUIDATION_ID, user: LIQ, side: 'SELL', lots: 99, bankruptcyPrice: 900 },
      0,
    );
    expect(r.lots).toBe(5);
    expect(r.events.filter((e): e is Trade => e.type === 'trade').map((t) => [t.maker.user, t.qty])).toEqual([
      [BOB, '0.001'],
      [CAROL, '0.002'],
      [DAVE, '0.002'],
    ]);
    expect(sb.book.position(p.userIds.get(LIQ)!)).toBe(0);
    expect([sb.book.longOi, sb.book.shortOi]).toEqual([0, 0]);
  });

  it('closes nothing for the wrong side, an unknown user or no position', () => {
    const { p, sb, cmd, at } = setup();
    const base = {
      liquidationId: LIQUIDATION_ID,
      user: LIQ,
      side: 'BUY' as const,
      lots: 2,
      bankruptcyPrice: 900,
    };
    expect(adlClose(p, sb, at, cmd, base, 0)).toEqual({ events: [], lots: 0 });
    expect(adlClose(p, sb, at, cmd, { ...base, side: 'SELL', user: `0x${'9'.repeat(40)}` }, 0)).toEqual({
      events: [],
      lots: 0,
    });
  });

  it('closes nothing while the market is halted', () => {
    const { p, sb, cmd, at } = setup();
    sb.book.setState(BookMarketState.HALT);
    const base = {
      liquidationId: LIQUIDATION_ID,
      user: LIQ,
      side: 'SELL' as const,
      lots: 2,
      bankruptcyPrice: 900,
    };
    expect(adlClose(p, sb, at, cmd, base, 0)).toEqual({ events: [], lots: 0 });
    expect(sb.book.position(p.userIds.get(LIQ)!)).toBe(5);
  });

  it('trims the counterparty reduce-only orders and publishes the book change', () => {
    const { shard, p, sb, cmd, at } = setup();
    shard.apply(next(), place(DAVE, 'BUY', '80', '0.002', true));
    shard.apply(next(), scores(1, [[DAVE, '2']], 10));
    const r = adlClose(
      p,
      sb,
      at,
      cmd,
      { liquidationId: LIQUIDATION_ID, user: LIQ, side: 'SELL', lots: 1, bankruptcyPrice: 900 },
      0,
    );
    expect(r.events.map((e) => e.type)).toEqual(['trade', 'order.amended', 'book.delta', 'book.top']);
    expect(r.events[2]).toMatchObject({ bids: [['80.0', '0.001']], asks: [] });
  });

  it('runs after the book part of a liquidation.place: liquidation.done reports the ADL quantity', () => {
    const { shard } = setup();
    shard.apply(
      next(),
      scores(
        1,
        [
          [CAROL, '0.5'],
          [DAVE, '2'],
          [BOB, '0.1'],
        ],
        10,
      ),
    );
    // One bid of 0.001 at 95 (ALICE, a new long) above the bankruptcy price 90: the book fills it.
    const ALICE = `0x${'a'.repeat(40)}`;
    shard.apply(next(), place(ALICE, 'BUY', '95', '0.001'));
    const m = next();
    const out = shard.applyLiquidation(m, {
      id: 'liq',
      v: 1,
      time: 1_700_000_001_000,
      type: 'liquidation.place',
      liquidationId: LIQUIDATION_ID,
      user: LIQ,
      symbol: 'BTCUSDT',
      side: 'SELL',
      quantity: '0.004',
      bankruptcyPrice: '90',
      limitPrice: '90',
      markPrice: '91',
      marginMode: 'CROSS',
      origin: { partition: 1, offset: '11' },
    })!;
    const trades = out.events.filter((e): e is Trade => e.type === 'trade');
    expect(trades.map((t) => [t.kind, t.price, t.qty, t.maker.user])).toEqual([
      ['LIQUIDATION', '95.0', '0.001', ALICE],
      ['ADL', '90.0', '0.002', DAVE],
      ['ADL', '90.0', '0.001', CAROL],
    ]);
    expect(out.events.at(-1)).toMatchObject({
      type: 'liquidation.done',
      filledQty: '0.001',
      avgPrice: '95',
      adlQty: '0.003',
      unfilledQty: '0',
    });
    expect(out.events.map((e) => e.id)).toEqual(out.events.map((_, i) => `${TOPIC}/0/${m.offset}/${i}`));
    for (const e of out.events) expect(parseMessage('engineEvents', e)).toEqual(e);
    const book = shard.book('BTCUSDT')!;
    expect(book.longOi).toBe(book.shortOi);
    const ids = (shard as unknown as { partitions: { get(n: number): EnginePartition } }).partitions.get(
      0,
    ).userIds;
    // LIQ long 0.005 less the 0.004 liquidated; DAVE closed, CAROL short 0.001 left.
    expect([LIQ, DAVE, CAROL].map((u) => book.position(ids.get(u)!))).toEqual([1, 0, -1]);
  });

  it('replays the same: from a snapshot taken before, the liquidation re-emits identical events', () => {
    const markets = new MarketRegistry([BTC]);
    const p = new EnginePartition(0);
    const m = { topic: TOPIC, partition: 0 };
    let o = 0;
    for (const c of [
      place(CAROL, 'SELL', '100', '0.002'),
      place(DAVE, 'SELL', '100', '0.002'),
      place(LIQ, 'BUY', '100', '0.004'),
    ])
      applyBookCommand(p, markets, { ...m, offset: String(o++) }, c);
    applyAdlScores(
      p,
      markets,
      { ...m, offset: String(o++) },
      scores(
        1,
        [
          [CAROL, '3'],
          [DAVE, '1'],
        ],
        1,
      ),
    );
    const before = p.serialize();
    const liq: Extract<EngineCommand, { type: 'liquidation.place' }> = {
      id: 'liq',
      v: 1,
      time: 1_700_000_001_000,
      type: 'liquidation.place',
      liquidationId: LIQUIDATION_ID,
      user: LIQ,
      symbol: 'BTCUSDT',
      side: 'SELL',
      quantity: '0.003',
      bankruptcyPrice: '90',
      limitPrice: '90',
      markPrice: '91',
      marginMode: 'CROSS',
    };
    const at = { ...m, offset: String(o) };
    const first = applyLiquidationOrder(p, markets, at, liq, adlRemainder);
    const replayed = EnginePartition.deserialize(0, before);
    expect(applyLiquidationOrder(replayed, markets, at, liq, adlRemainder)).toEqual(first);
    expect(replayed.serialize().toString()).toBe(p.serialize().toString());
    expect(first.events.filter((e) => e.type === 'trade').map((e) => (e as Trade).maker.user)).toEqual([
      CAROL,
      DAVE,
    ]);
  });
});
