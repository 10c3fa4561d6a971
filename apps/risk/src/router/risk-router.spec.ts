import { type EngineEvent, parseOutputId } from '@perp/contracts';
import { engineEventRecipients } from './risk-router';

const maker = '0x00000000000000000000000000000000000000aa';
const taker = '0x00000000000000000000000000000000000000bb';

describe('risk router', () => {
  it('reads the place of the engine command behind an event id, never the events log offset', () => {
    expect(parseOutputId('perp.engine.commands.v1/3/1042/7')).toEqual({
      partition: 3,
      offset: '1042',
      index: 7,
    });
    for (const bad of ['admin/xyz', 'perp.engine.commands.v1/x/1/2', 'a/1/-2/3', ''])
      expect(parseOutputId(bad)).toBeUndefined();
  });

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
});
