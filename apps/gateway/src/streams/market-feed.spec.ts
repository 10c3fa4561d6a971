import type { Bus, BusMessage } from '@perp/bus';
import { type EngineEvent, TOPICS } from '@perp/contracts';
import { MarketRegistry, parseMarket } from '@perp/domain';
import { MarketFeed } from './market-feed';
import { StreamHub } from './stream-hub';

const BTC = parseMarket({
  symbol: 'BTCUSDT',
  baseAsset: 'BTC',
  quoteAsset: 'USDT',
  tickSize: '0.1',
  lotSize: '0.001',
  minOrderSizeUsd: '5',
  maxOrderSizeUsd: '5000000',
  maxLeverage: 125,
  defaultLeverage: 20,
  maxLongOi: '10000',
  maxShortOi: '10000',
  rank: 1,
  sortOrder: 1,
  maintenanceBrackets: [{ notionalCap: '50000', maintMarginRatio: '0.004', maxLeverage: 125 }],
});
const A = `0x${'a'.repeat(40)}`;
const B = `0x${'b'.repeat(40)}`;

function trade(seq: number, kind?: 'ADL' | 'LIQUIDATION'): EngineEvent {
  const split = { open: '0', close: '0.001' };
  return {
    v: 1,
    id: `${TOPICS.engineCommands.name}/0/${seq}/0`,
    time: 1_700_000_000_000,
    type: 'trade',
    symbol: 'BTCUSDT',
    seq,
    tradeId: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    ...(kind ? { kind } : {}),
    price: '100.0',
    qty: '0.001',
    taker: { orderId: `t${seq}`, user: A, side: 'SELL', split },
    maker: { orderId: `m${seq}`, user: B, side: 'BUY', split },
  };
}

const message = (value: EngineEvent, offset: number): BusMessage =>
  ({
    topic: TOPICS.engineEvents.name,
    partition: 0,
    offset: String(offset),
    key: 'BTCUSDT',
    value,
    headers: {},
  }) as BusMessage;

describe('MarketFeed: trades', () => {
  it('streams public trades (liquidations included) but never an ADL close', () => {
    const published: [string, unknown][] = [];
    // A real hub, every stream subscribed, its publications recorded.
    const hub = new StreamHub();
    jest.spyOn(hub, 'has').mockReturnValue(true);
    jest.spyOn(hub, 'publish').mockImplementation((key: string, data: unknown) => {
      published.push([key, data]);
    });
    // Only the bus, the hub and the markets matter to the engine-event path; the rest are unused stubs.
    const feed = Reflect.construct(MarketFeed, [
      {} as Bus,
      hub,
      new MarketRegistry([BTC]),
      {},
      {},
      {},
      {},
      { on: () => undefined },
    ]) as MarketFeed;
    (feed as unknown as { onEngineEvents(ms: BusMessage[]): void }).onEngineEvents([
      message(trade(1), 0),
      message(trade(2, 'ADL'), 1),
      message(trade(3, 'LIQUIDATION'), 2),
    ]);
    const trades = published.filter(([k]) => k === 'BTCUSDT@trade').map(([, d]) => (d as { t: number }).t);
    expect(trades).toEqual([1, 3]);
    const aggs = published.filter(([k]) => k === 'BTCUSDT@aggTrade').map(([, d]) => (d as { l: number }).l);
    expect(aggs).not.toContain(2);
    expect(aggs.length).toBeGreaterThan(0);
  });
});
