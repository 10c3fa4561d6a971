import { MarketRegistry } from '@perp/domain';
import { signed } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from '../testing/in-process-exchange';
import { adminRequest, deposit, newTrader, type Trader } from './trading.harness';

jest.setTimeout(60_000);

// A pause or a resume is on every risk partition's log before the operator gets the answer: the
// next order is checked against it, whichever partition its user is on.
describe('market pause and resume, as the next order sees them', () => {
  let ex: InProcessExchange;
  let traders: Trader[];

  beforeAll(async () => {
    ex = await startInProcessExchange();
    traders = await Promise.all(Array.from({ length: 4 }, () => newTrader(ex.url)));
    for (const t of traders) await deposit(ex.url, ex.adminToken, t.address, '1000');
    expect(
      (await adminRequest(ex.url, ex.adminToken, '/prices/ETHUSDT', 'POST', { indexPrice: '3000' })).status,
    ).toBe(200);
  });
  afterAll(() => ex?.close());

  const bid = (t: Trader, clientOrderId: string, symbol = 'ETHUSDT', price = '2000', quantity = '0.01') =>
    signed(ex.url, '/fapi/v1/order', t.key, {
      method: 'POST',
      params: {
        symbol,
        side: 'BUY',
        type: 'LIMIT',
        timeInForce: 'GTC',
        price,
        quantity,
        newClientOrderId: clientOrderId,
      },
    });

  it('refuses an order sent right after a pause and takes one sent right after a resume, every time', async () => {
    for (let round = 0; round < 5; round++) {
      const paused = await adminRequest(ex.url, ex.adminToken, '/markets/ETHUSDT/pause', 'POST');
      expect(paused.body).toMatchObject({ status: 'HALT' });
      for (const [i, t] of traders.entries())
        expect(await bid(t, `p${round}-${i}`)).toMatchObject({
          status: 400,
          body: { code: -1121, msg: 'ETHUSDT is not trading' },
        });
      const resumed = await adminRequest(ex.url, ex.adminToken, '/markets/ETHUSDT/resume', 'POST');
      expect(resumed.body).toMatchObject({ status: 'TRADING' });
      for (const [i, t] of traders.entries())
        expect(await bid(t, `r${round}-${i}`)).toMatchObject({ status: 200, body: { status: 'NEW' } });
    }
  });

  // The engine's copy carries the definition: each risk partition knows the market from there on.
  it('takes the next order of every user on a market listed at run time, and of none before', async () => {
    expect(await bid(traders[0]!, 'before-listing', 'AVAXUSDT', '20', '1')).toMatchObject({
      status: 400,
      body: { code: -1121 },
    });
    const eth = ex.app.get(MarketRegistry).find('ETHUSDT')!;
    const listed = await adminRequest(ex.url, ex.adminToken, '/markets', 'POST', {
      ...eth,
      symbol: 'AVAXUSDT',
      baseAsset: 'AVAX',
      status: 'TRADING',
    });
    expect(listed).toMatchObject({ status: 200, body: { symbol: 'AVAXUSDT', status: 'TRADING' } });
    expect(
      (await adminRequest(ex.url, ex.adminToken, '/prices/AVAXUSDT', 'POST', { indexPrice: '20' })).status,
    ).toBe(200);
    for (const [i, t] of traders.entries())
      expect(await bid(t, `listed-${i}`, 'AVAXUSDT', '19.5', '1')).toMatchObject({
        status: 200,
        body: { status: 'NEW', symbol: 'AVAXUSDT' },
      });
  });
});
