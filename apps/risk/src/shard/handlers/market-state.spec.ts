import { newAlgo } from './__fixtures__/algo-orders';
import { parseMarket } from '@perp/domain';
import {
  ALICE,
  deposit,
  devnetMarkets,
  marketListing,
  marketStatus,
  newOrder,
  riskHarness,
} from './__fixtures__/risk-context';

/** ALICE with 1000 USDT, every market trading as configured. */
function funded() {
  const h = riskHarness();
  h.run(deposit(ALICE, '1000'));
  return h;
}

const NOT_TRADING = { ok: false, error: { reason: 'MARKET_NOT_TRADING', msg: 'BTCUSDT is not trading' } };

describe('market states in a risk partition', () => {
  it('refuses orders and algo orders from a HALT copy on and takes them again from a TRADING one, whatever the live list says', () => {
    const h = funded();
    h.run(marketStatus('HALT', 1));
    expect(h.run(newOrder(1), { reply: true }).reply).toEqual(NOT_TRADING);
    expect(
      h.run(newAlgo('a1', 'STOP_MARKET', 'SELL', { triggerPrice: '50000' }), { reply: true }).reply,
    ).toEqual(NOT_TRADING);
    // Taken: forwarded to the engine, which answers.
    expect(
      h.run(newOrder(2, { symbol: 'ETHUSDT', price: '3000' })).engineCommands.map((c) => c.type),
    ).toEqual(['order.place']);
    // The process's live list is not the partition's: a market it still lists as halted trades
    // here once the partition's log says so.
    h.markets.setStatus('BTCUSDT', 'HALT');
    h.run(marketStatus('TRADING', 2));
    const out = h.run(newOrder(3), { reply: true });
    expect(out.engineCommands.map((c) => c.type)).toEqual(['order.place']);
  });

  it('drops a copy at or below the last one applied for the symbol (the engine copying again on a replay)', () => {
    const h = funded();
    h.run(marketStatus('HALT', 5));
    h.run(marketStatus('TRADING', 6));
    h.run(marketStatus('HALT', 5));
    h.run(marketStatus('HALT', 6));
    expect(h.run(newOrder(1)).engineCommands.map((c) => c.type)).toEqual(['order.place']);
    h.run(marketStatus('HALT', 7));
    expect(h.run(newOrder(2), { reply: true }).reply).toEqual(NOT_TRADING);
  });

  it('decides a replay from a snapshot as the first run did, with the live list already ahead of it', () => {
    const h = funded();
    const restored = h.restored();
    const inputs = [
      newOrder(1),
      marketStatus('HALT', 1),
      newOrder(2),
      newAlgo('a1', 'STOP_MARKET', 'SELL', { triggerPrice: '50000' }),
      marketStatus('TRADING', 2),
      newOrder(3),
      marketStatus('HALT', 3),
    ];
    const first = inputs.map((i) => h.run(i, { reply: true }));
    const taken = (o: (typeof first)[number]) => o.engineCommands.some((c) => c.type === 'order.place');
    expect(first.map(taken)).toEqual([true, false, false, false, false, true, false]);
    expect(first.map((o) => o.reply?.ok)).toEqual([
      undefined,
      undefined,
      false,
      false,
      undefined,
      undefined,
      undefined,
    ]);
    // After a restart the process's list holds the last pause before the partition replays.
    h.markets.setStatus('BTCUSDT', 'HALT');
    const replay = inputs.map((i) => restored.run(i, { reply: true }));
    expect(replay.map((o) => [o.reply, o.engineCommands, o.accountEvents])).toEqual(
      first.map((o) => [o.reply, o.engineCommands, o.accountEvents]),
    );
    expect(restored.p.openOrdersOf(ALICE).map((o) => o.clientOrderId)).toEqual(['c1', 'c3']);
    expect(restored.p.serialize().equals(h.p.serialize())).toBe(true);
  });

  it('keeps its market states in its snapshot', () => {
    const h = funded();
    h.run(marketStatus('HALT', 4));
    const restored = h.restored();
    expect(restored.run(newOrder(1), { reply: true }).reply).toEqual(NOT_TRADING);
    restored.run(marketStatus('HALT', 4));
    restored.run(marketStatus('TRADING', 5));
    expect(restored.run(newOrder(2)).engineCommands.map((c) => c.type)).toEqual(['order.place']);
  });

  it('knows a market listed at run time from its copy on, whatever the live list has read, and so again on a replay', () => {
    const h = funded();
    const restored = h.restored();
    const listed = parseMarket({ ...h.markets.find('BTCUSDT')!, symbol: 'NEWUSDT', baseAsset: 'NEW' });
    const order = (n: number) => newOrder(n, { symbol: 'NEWUSDT', price: '50000' });
    const inputs = [
      order(1),
      marketListing(listed, 1),
      order(2),
      marketStatus('HALT', 2, 'NEWUSDT'),
      order(3),
    ];
    // The first run: the process's list has not read the listing yet (a cluster's risk process
    // may read the markets topic after the engine's copy reached the partition).
    const first = inputs.map((i) => h.run(i, { reply: true }));
    expect(first.map((o) => [o.reply, o.engineCommands.map((c) => c.type)])).toEqual([
      [{ ok: false, error: { reason: 'INVALID_SYMBOL', msg: 'no market NEWUSDT' } }, []],
      [undefined, []],
      [undefined, ['order.place']],
      [undefined, []],
      [{ ok: false, error: { reason: 'MARKET_NOT_TRADING', msg: 'NEWUSDT is not trading' } }, []],
    ]);
    // A replay after a restart: the list holds the market as it is now (halted). The order sent
    // before the listing is still unknown, the one after it still taken.
    h.markets.upsert({ ...listed, status: 'HALT' });
    const replay = inputs.map((i) => restored.run(i, { reply: true }));
    expect(replay.map((o) => [o.reply, o.engineCommands, o.accountEvents])).toEqual(
      first.map((o) => [o.reply, o.engineCommands, o.accountEvents]),
    );
    expect(restored.p.serialize().equals(h.p.serialize())).toBe(true);
    // Its definition is in the snapshot: restored in a process whose list has not read the listing.
    const again = h.restored(devnetMarkets());
    again.run(marketStatus('TRADING', 3, 'NEWUSDT'));
    expect(again.run(order(4)).engineCommands.map((c) => c.type)).toEqual(['order.place']);
  });
});
