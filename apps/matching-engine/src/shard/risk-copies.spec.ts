import { type EngineEvent, riskCommand } from '@perp/contracts';
import { engineEventRecipients, riskCopies } from './risk-copies';

const maker = '0x00000000000000000000000000000000000000aa';
const taker = '0x00000000000000000000000000000000000000bb';

describe('risk copies of engine events', () => {
  it('copies a trade to its maker and its taker, each copy saying its liquidity; order events that change the account to their owner (not acceptances); book tops and deltas to nobody', () => {
    const base = { id: 'perp.engine.commands.v1/0/1/0', v: 1 as const, time: 1, symbol: 'BTCUSDT', seq: 1 };
    const side = (user: string) => ({
      orderId: 'o',
      user,
      side: 'BUY' as const,
      split: { open: '1', close: '0' },
    });
    const trade: EngineEvent = {
      ...base,
      type: 'trade',
      tradeId: '6f1c2d3e-4b5a-5c6d-8e7f-8091a2b3c4d5',
      price: '1',
      qty: '1',
      maker: side(maker),
      taker: side(taker),
    };
    expect(engineEventRecipients(trade)).toEqual([
      { user: maker, copy: 0, liquidity: 'MAKER' },
      { user: taker, copy: 1, liquidity: 'TAKER' },
    ]);
    const canceled: EngineEvent = {
      ...base,
      type: 'order.canceled',
      orderId: 'o',
      clientOrderId: 'c',
      user: maker,
      remaining: '1',
    };
    expect(engineEventRecipients(canceled)).toEqual([{ user: maker, copy: 0 }]);
    // Risk opened the record when it forwarded the order: the engine's acceptance changes nothing there.
    const accepted: EngineEvent = {
      ...base,
      type: 'order.accepted',
      orderId: 'o',
      clientOrderId: 'c',
      user: maker,
      side: 'BUY',
      price: '1',
      quantity: '1',
    };
    expect(engineEventRecipients(accepted)).toEqual([]);
    const top: EngineEvent = {
      ...base,
      type: 'book.top',
      bidPrice: '1',
      bidQty: '1',
      askPrice: '2',
      askQty: '1',
    };
    expect(engineEventRecipients(top)).toEqual([]);
    const delta: EngineEvent = {
      ...base,
      type: 'book.delta',
      firstSeq: 1,
      prevSeq: 0,
      bids: [['1', '1']],
      asks: [],
    };
    expect(engineEventRecipients(delta)).toEqual([]);
  });

  it('builds one engine.event command per recipient, keyed by its user, sourced at the engine command behind the event (index x 2 + copy)', () => {
    const trade: EngineEvent = {
      id: 'perp.engine.commands.v1/5/1042/3',
      v: 1,
      time: 7,
      symbol: 'BTCUSDT',
      seq: 9,
      type: 'trade',
      tradeId: '6f1c2d3e-4b5a-5c6d-8e7f-8091a2b3c4d5',
      price: '1',
      qty: '1',
      maker: { orderId: 'm', user: maker, side: 'SELL', split: { open: '1', close: '0' } },
      taker: { orderId: 't', user: taker, side: 'BUY', split: { open: '1', close: '0' } },
    };
    const copies = riskCopies(trade);
    expect(copies).toEqual([
      [
        maker,
        {
          id: 'perp.engine.commands.v1/5/1042/3/0',
          v: 1,
          time: 7,
          type: 'engine.event',
          source: { partition: 5, offset: '1042', index: 6 },
          liquidity: 'MAKER',
          event: trade,
        },
      ],
      [
        taker,
        {
          id: 'perp.engine.commands.v1/5/1042/3/1',
          v: 1,
          time: 7,
          type: 'engine.event',
          source: { partition: 5, offset: '1042', index: 7 },
          liquidity: 'TAKER',
          event: trade,
        },
      ],
    ]);
    // What the risk shard reads them as, unchanged by the schema.
    for (const [, c] of copies) expect(riskCommand.parse(c)).toEqual(c);
    const result: EngineEvent = {
      id: 'perp.engine.commands.v1/5/1042/4',
      v: 1,
      time: 7,
      symbol: 'BTCUSDT',
      seq: 10,
      type: 'command.result',
      user: taker,
      command: 'order.place',
      ok: true,
    };
    expect(riskCopies(result).map(([user, c]) => [user, 'liquidity' in c])).toEqual([[taker, false]]);
  });

  it('refuses an event whose id names no engine command: its copies could not be deduped', () => {
    const canceled = {
      id: 'not-an-output-id',
      v: 1,
      time: 1,
      symbol: 'BTCUSDT',
      seq: 1,
      type: 'order.canceled',
      orderId: 'o',
      clientOrderId: 'c',
      user: maker,
      remaining: '1',
    } as EngineEvent;
    expect(() => riskCopies(canceled)).toThrow(/input-derived id/);
  });
});
