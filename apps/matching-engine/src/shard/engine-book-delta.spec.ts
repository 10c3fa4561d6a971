import { type EngineEvent, parseMessage } from '@perp/contracts';
import { BookSide, MarketRegistry } from '@perp/domain';
import fc from 'fast-check';
import { applyBookCommand, type OrderCommand } from './book-commands';
import { fromSteps } from './conversions';
import { EnginePartition } from './engine-partition';
import { placeCommand } from './__fixtures__/commands';
import { ALICE, BOB, BTC } from './__fixtures__/markets';

const TOPIC = 'perp.engine.commands.v1';
const CAROL = `0x${'c'.repeat(40)}`;
const markets = new MarketRegistry([BTC]);
type Delta = Extract<EngineEvent, { type: 'book.delta' }>;

let n = 0;
const envelope = () => ({ id: `c-${++n}`, v: 1 as const, time: 1_700_000_000_000, symbol: 'BTCUSDT' });

const place = (
  user: string,
  side: 'BUY' | 'SELL',
  price: string,
  quantity: string,
  extra: Partial<OrderCommand> = {},
): OrderCommand => placeCommand(++n, user, side, price, quantity, extra);
const cancel = (user: string, orderId: string): OrderCommand => ({
  ...envelope(),
  type: 'order.cancel',
  user,
  orderId,
});
const cancelAll = (user: string): OrderCommand => ({ ...envelope(), type: 'order.cancelAll', user });
const amend = (user: string, orderId: string, price: string, quantity: string): OrderCommand => ({
  ...envelope(),
  type: 'order.amend',
  user,
  orderId,
  price,
  quantity,
});

/** One engine partition fed commands at consecutive offsets, as the shard would. */
class Engine {
  offset = 0;
  constructor(readonly p = new EnginePartition(0)) {}

  run(cmd: OrderCommand): EngineEvent[] {
    const at = { topic: TOPIC, partition: 0, offset: String(this.offset++) };
    return applyBookCommand(this.p, markets, at, cmd).events;
  }

  /** The command's one delta (throws when there is none or several). */
  delta(cmd: OrderCommand): Delta {
    const ds = this.run(cmd).filter((e): e is Delta => e.type === 'book.delta');
    if (ds.length !== 1) throw new Error(`${ds.length} deltas`);
    return ds[0];
  }

  get book() {
    return this.p.books.get('BTCUSDT')!.book;
  }
}

const idOf = (e: EngineEvent) => e.id.split('/').map((x, i) => (i === 3 ? Number(x) : x));

describe('engine book.delta', () => {
  it('a resting order: one level, after the order events and before book.top, chained from 0', () => {
    const e = new Engine();
    const events = e.run(place(ALICE, 'BUY', '99.5', '1.25'));
    expect(events.map((x) => x.type)).toEqual(['order.accepted', 'book.delta', 'book.top']);
    expect(events.map((x) => x.id)).toEqual([0, 1, 2].map((i) => `${TOPIC}/0/0/${i}`));
    expect(events[1]).toEqual({
      id: `${TOPIC}/0/0/1`,
      v: 1,
      time: 1_700_000_000_000,
      symbol: 'BTCUSDT',
      type: 'book.delta',
      seq: e.book.seq,
      firstSeq: events[0].seq,
      prevSeq: 0,
      bids: [['99.5', '1.250']],
      asks: [],
    });
    expect(parseMessage('engineEvents', events[1])).toEqual(events[1]);
  });

  it('a partial fill of a maker level: the level shrinks, first and last seq span the command', () => {
    const e = new Engine();
    e.run(place(ALICE, 'SELL', '100', '1'));
    const before = e.delta(place(BOB, 'SELL', '100', '2'));
    const events = e.run(place(CAROL, 'BUY', '100', '0.4'));
    expect(events.map((x) => x.type)).toEqual(['order.accepted', 'trade', 'book.delta', 'book.top']);
    const d = events[2] as Delta;
    expect(d).toMatchObject({ bids: [], asks: [['100.0', '2.600']], prevSeq: before.seq });
    expect([d.firstSeq, d.seq]).toEqual([events[0].seq, events[1].seq]);
    expect(idOf(d)[3]).toBe(2);
    expect(idOf(events[3])[3]).toBe(3);
  });

  it('an IOC or MARKET taker sweeping several levels removes each with quantity "0"', () => {
    const e = new Engine();
    for (const price of ['100', '100.1', '100.2']) e.run(place(ALICE, 'SELL', price, '1'));
    e.run(place(ALICE, 'SELL', '100.3', '2'));
    e.run(place(ALICE, 'BUY', '90', '1'));
    const ioc = e.run(place(BOB, 'BUY', '100.2', '5', { timeInForce: 'IOC' }));
    expect(ioc.map((x) => x.type)).toEqual([
      'order.accepted',
      'trade',
      'trade',
      'trade',
      'order.expired',
      'book.delta',
      'book.top',
    ]);
    expect(ioc[5]).toMatchObject({
      bids: [],
      asks: [
        ['100.0', '0.000'],
        ['100.1', '0.000'],
        ['100.2', '0.000'],
      ],
      seq: ioc[4].seq,
    });
    const market = e.delta(place(BOB, 'BUY', '0', '3', { orderType: 'MARKET', price: undefined }));
    expect(market).toMatchObject({ bids: [], asks: [['100.3', '0.000']] });
  });

  it('cancel, an amend to another price, and cancelAll list exactly the levels they changed', () => {
    const e = new Engine();
    const a = place(ALICE, 'BUY', '99', '1');
    const b = place(ALICE, 'BUY', '98', '2');
    for (const cmd of [a, b, place(BOB, 'BUY', '99', '3'), place(ALICE, 'SELL', '101', '1')]) e.run(cmd);
    const orderId = (cmd: OrderCommand) => (cmd as { orderId: string }).orderId;
    expect(e.delta(cancel(ALICE, orderId(a)))).toMatchObject({ bids: [['99.0', '3.000']], asks: [] });
    expect(e.delta(amend(ALICE, orderId(b), '99.5', '2'))).toMatchObject({
      bids: [
        ['99.5', '2.000'],
        ['98.0', '0.000'],
      ],
      asks: [],
    });
    expect(e.delta(amend(ALICE, orderId(b), '99.5', '1.5'))).toMatchObject({ bids: [['99.5', '1.500']] });
    expect(e.delta(cancelAll(ALICE))).toMatchObject({
      bids: [['99.5', '0.000']],
      asks: [['101.0', '0.000']],
    });
    expect(e.book.depth(BookSide.BUY)).toEqual([{ price: 990, quantity: 3000, orders: 1 }]);
  });

  it('chains prevSeq across commands; a command that changes no level publishes no delta', () => {
    const e = new Engine();
    const first = e.delta(place(ALICE, 'BUY', '99', '1'));
    const refused = e.run(place(BOB, 'SELL', '99', '1', { timeInForce: 'GTX' }));
    expect(refused.map((x) => x.type)).toEqual(['order.rejected']);
    const halted = e.run({ ...envelope(), type: 'market.status', status: 'HALT', actor: 'ops' });
    expect(halted.map((x) => x.type)).toEqual(['market.status']);
    e.run({ ...envelope(), type: 'market.status', status: 'TRADING', actor: 'ops' });
    const second = e.delta(place(BOB, 'SELL', '101', '1'));
    expect(second.prevSeq).toBe(first.seq);
    expect(second.firstSeq).toBeGreaterThan(first.seq + 1);
    const closed = e.run({ ...envelope(), type: 'market.status', status: 'CLOSE', actor: 'ops' });
    expect(closed.map((x) => x.type)).toEqual([
      'market.status',
      'order.canceled',
      'order.canceled',
      'book.delta',
      'book.top',
    ]);
    expect(closed[3]).toMatchObject({
      prevSeq: second.seq,
      seq: e.book.seq,
      bids: [['99.0', '0.000']],
      asks: [['101.0', '0.000']],
    });
  });

  it('prevSeq survives a snapshot: a restored partition replays the same events with the same ids', () => {
    const e = new Engine();
    const cmds = [
      place(ALICE, 'SELL', '100', '1'),
      place(ALICE, 'SELL', '100.5', '1'),
      place(BOB, 'BUY', '99', '2'),
      place(BOB, 'BUY', '100.5', '1.5'),
      place(ALICE, 'SELL', '98', '1', { timeInForce: 'IOC' }),
      cancelAll(BOB),
    ];
    const all = cmds.slice(0, 3).map((c) => e.run(c));
    const snapshot = e.p.serialize();
    all.push(...cmds.slice(3).map((c) => e.run(c)));

    const r = new Engine(EnginePartition.deserialize(0, snapshot));
    r.offset = 3;
    const replayed = cmds.slice(3).map((c) => r.run(c));
    expect(replayed).toEqual(all.slice(3));
    const deltas = all.flat().filter((x): x is Delta => x.type === 'book.delta');
    expect(deltas).toHaveLength(6);
    expect(deltas.map((d) => d.prevSeq)).toEqual([0, ...deltas.slice(0, -1).map((d) => d.seq)]);
  });

  it('applying every delta in order to an empty book rebuilds depth() exactly', () => {
    const users = [ALICE, BOB, CAROL];
    const cmd = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          t: fc.constant('place' as const),
          user: fc.integer({ min: 0, max: 2 }),
          side: fc.constantFrom('BUY' as const, 'SELL' as const),
          tif: fc.constantFrom('GTC', 'GTC', 'IOC', 'FOK', 'GTX'),
          price: fc.integer({ min: 995, max: 1005 }),
          lots: fc.integer({ min: 1, max: 5000 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          t: fc.constant('amend' as const),
          user: fc.integer({ min: 0, max: 2 }),
          price: fc.integer({ min: 995, max: 1005 }),
          lots: fc.integer({ min: 1, max: 5000 }),
          pick: fc.nat(),
        }),
      },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), pick: fc.nat() }) },
      {
        weight: 1,
        arbitrary: fc.record({ t: fc.constant('cancelAll' as const), user: fc.integer({ min: 0, max: 2 }) }),
      },
    );
    const px = (ticks: number) => fromSteps(ticks, '0.1', 1);
    const qty = (lots: number) => fromSteps(lots, '0.001', 3);
    fc.assert(
      fc.property(fc.array(cmd, { minLength: 1, maxLength: 60 }), (ops) => {
        const e = new Engine();
        const mirror = [new Map<string, string>(), new Map<string, string>()];
        let prev = 0;
        for (const op of ops) {
          const book = e.p.books.get('BTCUSDT')?.book;
          const resting = book ? [...book.ordersOf(BookSide.BUY), ...book.ordersOf(BookSide.SELL)] : [];
          const pick = 'pick' in op && resting.length ? resting[op.pick % resting.length] : undefined;
          const uuidOf = (id: number) => e.p.orders.get(id)!.uuid;
          const c =
            op.t === 'place'
              ? place(users[op.user], op.side, px(op.price), qty(op.lots), { timeInForce: op.tif })
              : op.t === 'cancelAll'
                ? cancelAll(users[op.user])
                : !pick
                  ? cancelAll(users[0])
                  : op.t === 'cancel'
                    ? cancel(e.p.userAddress(pick.user), uuidOf(pick.orderId))
                    : amend(e.p.userAddress(pick.user), uuidOf(pick.orderId), px(op.price), qty(op.lots));
          const events = e.run(c);
          for (const x of events) parseMessage('engineEvents', x);
          for (const d of events.filter((x): x is Delta => x.type === 'book.delta')) {
            expect(d.prevSeq).toBe(prev);
            prev = d.seq;
            for (const [side, levels] of [
              [0, d.bids],
              [1, d.asks],
            ] as const)
              for (const [price, q] of levels)
                if (Number(q) === 0) mirror[side].delete(price);
                else mirror[side].set(price, q);
          }
          for (const side of [BookSide.BUY, BookSide.SELL]) {
            const depth = e.book.depth(side).map((l) => [px(l.price), qty(l.quantity)]);
            const sorted = [...mirror[side]].sort(([a], [b]) =>
              side === BookSide.BUY ? Number(b) - Number(a) : Number(a) - Number(b),
            );
            expect(sorted).toEqual(depth);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
