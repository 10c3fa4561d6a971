import ccxt from 'ccxt';
import { type RunningApp, startAppProcess } from '@perp/testing';

/** The embedded exchange as a user starts it: the compiled entry point in its own process. */
describe('embedded exchange process', () => {
  let ex: RunningApp;

  beforeAll(async () => {
    ex = await startAppProcess('exchange');
  }, 30_000);

  afterAll(async () => {
    await ex?.stop();
  });

  it('answers liveness and readiness probes', async () => {
    const live = await fetch(`${ex.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${ex.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', ready: true });
  });

  it("loads its markets in ccxt's binanceusdm with the configured precisions and limits", async () => {
    const fapi = `${ex.url}/fapi`;
    const client = new ccxt.binanceusdm({
      urls: {
        api: {
          fapiPublic: `${fapi}/v1`,
          fapiPublicV2: `${fapi}/v2`,
          fapiPublicV3: `${fapi}/v3`,
          fapiPrivate: `${fapi}/v1`,
          fapiPrivateV2: `${fapi}/v2`,
          fapiPrivateV3: `${fapi}/v3`,
          fapiData: `${ex.url}/futures/data`,
        },
      },
      options: { fetchCurrencies: false },
    });
    const markets = await client.loadMarkets();
    const symbols = Object.keys(markets).sort();
    expect(symbols).toEqual(['BTC/USDT:USDT', 'ETH/USDT:USDT', 'SOL/USDT:USDT']);

    const btc = markets['BTC/USDT:USDT']!;
    expect(btc.id).toBe('BTCUSDT');
    expect(btc.swap).toBe(true);
    expect(btc.linear).toBe(true);
    expect(btc.active).toBe(true);
    expect(btc.settle).toBe('USDT');
    expect(btc.precision.price).toBe(0.1);
    expect(btc.precision.amount).toBe(0.001);
    expect(btc.limits.amount?.min).toBe(0.001);
    expect(btc.limits.price?.min).toBe(0.1);
    expect(btc.limits.cost?.min).toBe(5);

    const sol = markets['SOL/USDT:USDT']!;
    expect(sol.precision.price).toBe(0.001);
    expect(sol.precision.amount).toBe(0.01);
  }, 30_000);
});
