import { HOT_STORE, type HotStore } from '@perp/cache';
import { INDEX_SOURCE_KEY, type IndexSourceStatus, indexSourceStatus } from '@perp/contracts';
import type { IndexUnavailableReason } from '@perp/domain';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { createKey, http, json, type KeyPair, login, nativeError, signed } from '@perp/testing';
import { Wallet } from 'ethers';

const SYMBOL = 'BTCUSDT';
const disconnected = { code: -1001, msg: expect.stringContaining('price of BTCUSDT is unavailable') };

/** A status as the composite feed writes it after a poll (market-data index-source-feed.ts). */
function status(reason?: IndexUnavailableReason): IndexSourceStatus {
  const common = {
    symbol: SYMBOL,
    time: Date.now(),
    description: 'composite(chainlink:BTC/USD)',
    sources: [
      {
        name: 'chainlink:BTC/USD',
        kind: 'chainlink' as const,
        state: reason === 'CIRCUIT_OPEN' ? ('CIRCUIT_OPEN' as const) : ('STALE' as const),
        price: '50000',
        time: Date.now() - 3_600_000,
        circuit: reason === 'CIRCUIT_OPEN' ? ('OPEN' as const) : ('CLOSED' as const),
        failures: reason === 'CIRCUIT_OPEN' ? 5 : 0,
      },
    ],
  };
  return indexSourceStatus.parse(
    reason
      ? { status: 'UNAVAILABLE', reason, ...common }
      : { status: 'AVAILABLE', price: '50000', ...common },
  );
}

// The gateway's answers while the composite index feed says a market's price is unavailable: the
// status is written to the hot store exactly as the feed writes it (JSON string with a TTL).
describe('price unavailable from the composite index status (embedded exchange)', () => {
  let ex: InProcessExchange;
  let hot: HotStore;
  let token: string;
  let key: KeyPair;

  const setStatus = (reason?: IndexUnavailableReason) =>
    hot.set(INDEX_SOURCE_KEY(SYMBOL), JSON.stringify(status(reason)), { ttlMs: 60_000 });
  const fundingRate = () => http(`${ex.url}/api/v1/funding-rates/btc-usdt`);
  const premiumIndex = (symbol?: string) =>
    http(`${ex.url}/fapi/v1/premiumIndex${symbol ? `?symbol=${symbol}` : ''}`);
  const nativeOrder = (type: 'market' | 'limit') =>
    json(
      `${ex.url}/api/v1/orders`,
      'POST',
      {
        symbol: SYMBOL,
        side: 'buy',
        type,
        quantity: '0.01',
        ...(type === 'limit' ? { price: '40000' } : {}),
      },
      token,
    );
  const fapiOrder = (path: 'order' | 'order/test', type: 'MARKET' | 'LIMIT') =>
    signed(ex.url, `/fapi/v1/${path}`, key, {
      method: 'POST',
      params: {
        symbol: SYMBOL,
        side: 'BUY',
        type,
        quantity: '0.01',
        ...(type === 'LIMIT' ? { price: '40000', timeInForce: 'GTC' } : {}),
      },
    });
  const answer = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

  beforeAll(async () => {
    ex = await startInProcessExchange({});
    hot = ex.app.get<HotStore>(HOT_STORE);
    const wallet = Wallet.createRandom();
    token = await login(ex.url, wallet);
    key = await createKey(ex.url, token);
    const admin = (path: string, body: unknown) =>
      json(`${ex.url}/admin/v1${path}`, 'POST', body, ex.adminToken);
    const deposit = { address: wallet.address.toLowerCase(), asset: 'USDT', amount: '100000' };
    expect((await admin('/deposits', deposit)).status).toBe(200);
    expect((await admin(`/prices/${SYMBOL}`, { indexPrice: '50000' })).status).toBe(200);
  });
  afterAll(() => ex?.close());
  afterEach(() => hot.del(INDEX_SOURCE_KEY(SYMBOL)));

  it('no status (no composite feed): the price is available', async () => {
    expect((await fundingRate()).status).toBe(200);
    expect((await premiumIndex(SYMBOL)).status).toBe(200);
    expect((await fapiOrder('order/test', 'MARKET')).status).toBe(200);
  });

  describe.each<[IndexUnavailableReason, string]>([
    ['NO_FRESH_SOURCE', 'PRICE_DATA_UNAVAILABLE'],
    ['SOURCES_DISAGREE', 'PRICE_DATA_UNAVAILABLE'],
    ['CIRCUIT_OPEN', 'CIRCUIT_OPEN'],
  ])('UNAVAILABLE %s', (reason, nativeCode) => {
    beforeEach(() => setStatus(reason));

    it(`native GET /api/v1/funding-rates/{symbol}: 503 ${nativeCode}`, async () => {
      expect(answer(await fundingRate())).toEqual({ status: 503, body: nativeError(nativeCode) });
    });

    it(`native MARKET order: 503 ${nativeCode}; a LIMIT order is still placed`, async () => {
      expect(answer(await nativeOrder('market'))).toEqual({ status: 503, body: nativeError(nativeCode) });
      const limit = await nativeOrder('limit');
      expect([limit.status, limit.body.status]).toEqual([200, 'new']);
    });

    it('FAPI premiumIndex of the symbol: 500 -1001; the all-markets list still answers', async () => {
      expect(answer(await premiumIndex('BTCUSDT'))).toEqual({ status: 500, body: disconnected });
      expect((await premiumIndex()).status).toBe(200);
    });

    it('FAPI MARKET order and test order: 500 -1001; a LIMIT order is still placed', async () => {
      expect(answer(await fapiOrder('order', 'MARKET'))).toEqual({ status: 500, body: disconnected });
      expect(answer(await fapiOrder('order/test', 'MARKET'))).toEqual({ status: 500, body: disconnected });
      const limit = await fapiOrder('order', 'LIMIT');
      expect([limit.status, limit.body.status]).toEqual([200, 'NEW']);
    });
  });

  it('AVAILABLE again: the answers come back', async () => {
    await setStatus('NO_FRESH_SOURCE');
    expect((await fundingRate()).status).toBe(503);
    await setStatus();
    expect((await fundingRate()).status).toBe(200);
    expect((await premiumIndex(SYMBOL)).status).toBe(200);
    expect((await fapiOrder('order/test', 'MARKET')).status).toBe(200);
    expect((await fapiOrder('order', 'MARKET')).status).toBe(200);
    expect((await nativeOrder('market')).status).toBe(200);
  });
});
