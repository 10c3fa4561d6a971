import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { authError, createKey, json, type KeyPair, login, signed } from '@perp/testing';
import ccxt from 'ccxt';
import { Wallet } from 'ethers';

/** GET /fapi/v1/accountConfig and /fapi/v1/symbolConfig over HTTP, against the account's real state. */
describe('FAPI account configuration reads (embedded exchange)', () => {
  let ex: InProcessExchange;
  let token: string;
  let key: KeyPair;
  let address: string;
  let nextIp = 1;

  const get = (path: string, params: Record<string, string> = {}, k = key) =>
    signed(ex.url, `/fapi/v1/${path}`, k, {
      params,
      // A client of its own per request, so the weight header is this request's weight.
      headers: { 'x-forwarded-for': `10.6.0.${nextIp++}` },
    });
  const leverage = (symbol: string, value: string) =>
    signed(ex.url, '/fapi/v1/leverage', key, { method: 'POST', params: { symbol, leverage: value } });

  beforeAll(async () => {
    ex = await startInProcessExchange({ TRUSTED_PROXIES: '127.0.0.1' });
    const wallet = Wallet.createRandom();
    address = wallet.address.toLowerCase();
    token = await login(ex.url, wallet);
    key = await createKey(ex.url, token);
  });
  afterAll(() => ex?.close());

  it("accountConfig: Binance's shape, the live fee tier, weight 5", async () => {
    const r = await get('accountConfig');
    expect([r.status, r.headers['x-mbx-used-weight-1m']]).toEqual([200, '5']);
    expect(r.body).toEqual({
      feeTier: 0,
      canTrade: true,
      canDeposit: true,
      canWithdraw: false,
      dualSidePosition: false,
      updateTime: 0,
      multiAssetsMargin: false,
      tradeGroupId: -1,
    });
    const vip = await json(`${ex.url}/admin/v1/users/${address}/vip`, 'PUT', { tier: 2 }, ex.adminToken);
    expect(vip.status).toBe(200);
    expect((await get('accountConfig')).body.feeTier).toBe(2);
  });

  it('symbolConfig: every market with its default leverage, weight 5', async () => {
    const r = await get('symbolConfig');
    expect([r.status, r.headers['x-mbx-used-weight-1m']]).toEqual([200, '5']);
    expect(r.body.map((x: { symbol: string; leverage: number }) => [x.symbol, x.leverage])).toEqual([
      ['BTCUSDT', 20],
      ['ETHUSDT', 20],
      ['SOLUSDT', 10],
    ]);
    expect(r.body[0]).toEqual({
      symbol: 'BTCUSDT',
      marginType: 'CROSSED',
      isAutoAddMargin: 'false',
      leverage: 20,
      // The largest bracket cap whose max leverage allows 20x (deploy/chains/devnet).
      maxNotionalValue: '100000000',
    });
  });

  it('symbolConfig with a symbol: one row, the leverage set and its maxNotionalValue', async () => {
    const set = await leverage('BTCUSDT', '50');
    expect([set.status, set.body.maxNotionalValue]).toEqual([200, '12000000']);
    const r = await get('symbolConfig', { symbol: 'btc-usd' });
    expect(r.body).toEqual([
      {
        symbol: 'BTCUSDT',
        marginType: 'CROSSED',
        isAutoAddMargin: 'false',
        leverage: 50,
        maxNotionalValue: set.body.maxNotionalValue,
      },
    ]);
  });

  it("symbolConfig follows the account's margin mode", async () => {
    const switched = await json(
      `${ex.url}/api/v1/account/margin-mode`,
      'POST',
      { margin_mode: 'isolated' },
      token,
    );
    expect(switched.status).toBe(200);
    const r = await get('symbolConfig', { symbol: 'ETHUSDT' });
    expect(r.body).toMatchObject([{ symbol: 'ETHUSDT', marginType: 'ISOLATED' }]);
  });

  it('an absent symbol is 400 -1121; both are signed endpoints', async () => {
    for (const symbol of ['DOGEUSDT', 'doge-usd', '']) {
      const r = await get('symbolConfig', { symbol });
      expect([r.status, r.body]).toEqual([400, { code: -1121, msg: 'Invalid symbol.' }]);
    }
    const nobody: KeyPair = { api_key: 'f'.repeat(64), secret_key: 'x' };
    for (const path of ['accountConfig', 'symbolConfig']) {
      const r = await get(path, {}, nobody);
      expect([path, r.status, r.body]).toEqual([path, 401, authError('INVALID_API_KEY')]);
    }
  });

  it('ccxt binanceusdm: fetchLeverages and fetchMarginModes read symbolConfig', async () => {
    // With keys, ccxt's loadMarkets also asks Binance's spot wallet for currencies: switched off.
    const c = new ccxt.binanceusdm({
      apiKey: key.api_key,
      secret: key.secret_key,
      options: { fetchCurrencies: false },
    });
    const api = c.urls['api'] as Record<string, string>;
    for (const name of Object.keys(api))
      if (name.startsWith('fapi')) api[name] = api[name]!.replace('https://fapi.binance.com', ex.url);
    const leverages = await c.fetchLeverages(['BTC/USDT:USDT', 'SOL/USDT:USDT']);
    expect(leverages['BTC/USDT:USDT']).toMatchObject({ longLeverage: 50, shortLeverage: 50 });
    expect(leverages['SOL/USDT:USDT']).toMatchObject({ longLeverage: 10, marginMode: 'isolated' });
    const modes = await c.fetchMarginModes(['ETH/USDT:USDT']);
    expect(modes['ETH/USDT:USDT']).toMatchObject({ marginMode: 'isolated' });
  });
});
