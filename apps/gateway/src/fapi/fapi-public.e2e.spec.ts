import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';

describe('FAPI public endpoints (embedded exchange over HTTP)', () => {
  let ex: InProcessExchange;
  const get = async (path: string) => {
    const r = await fetch(`${ex.url}${path}`);
    return { status: r.status, body: (await r.json()) as any };
  };

  beforeAll(async () => {
    ex = await startInProcessExchange();
  });
  afterAll(() => ex.close());

  it('GET /fapi/v1/ping answers {}', async () => {
    expect(await get('/fapi/v1/ping')).toEqual({ status: 200, body: {} });
  });

  it('GET /fapi/v1/time answers the server clock in ms', async () => {
    const before = Date.now();
    const { status, body } = await get('/fapi/v1/time');
    expect(status).toBe(200);
    expect(Number.isInteger(body.serverTime)).toBe(true);
    expect(body.serverTime).toBeGreaterThanOrEqual(before);
    expect(body.serverTime).toBeLessThanOrEqual(Date.now());
  });

  it("GET /fapi/v1/exchangeInfo has Binance's shape plus the spec's fields", async () => {
    const { status, body } = await get('/fapi/v1/exchangeInfo');
    expect(status).toBe(200);
    expect(body.timezone).toBe('UTC');
    expect(body.rateLimits.map((r: { rateLimitType: string }) => r.rateLimitType)).toEqual([
      'REQUEST_WEIGHT',
      'ORDERS',
      'ORDERS',
    ]);
    expect(body.assets).toEqual([{ asset: 'USDT', marginAvailable: true, autoAssetExchange: '0' }]);
    expect(body.symbols.map((s: { symbol: string }) => s.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    const btc = body.symbols[0];
    expect(btc).toMatchObject({
      status: 'TRADING',
      contractType: 'PERPETUAL',
      baseAsset: 'BTC',
      quoteAsset: 'USDT',
      marginAsset: 'USDT',
      pricePrecision: 1,
      quantityPrecision: 3,
      underlyingType: 'COIN',
      lot_size: '0.001',
      min_order_size_usd: '5',
      max_order_size_usd: '5000000',
      requiredMarginPercent: '0.8000',
      maintMarginPercent: '0.4000',
    });
    const filters = Object.fromEntries(btc.filters.map((f: { filterType: string }) => [f.filterType, f]));
    expect(filters.PRICE_FILTER).toMatchObject({ tickSize: '0.1', minPrice: '0.1' });
    expect(filters.LOT_SIZE).toMatchObject({ stepSize: '0.001', minQty: '0.001' });
    expect(filters.MARKET_LOT_SIZE).toMatchObject({ stepSize: '0.001', minQty: '0.001' });
    expect(filters.MIN_NOTIONAL).toEqual({ filterType: 'MIN_NOTIONAL', notional: '5' });
    expect(btc.orderTypes).toContain('STOP_MARKET');
    expect(btc.timeInForce).toEqual(['GTC', 'IOC', 'FOK', 'GTX', 'GTD']);
  });

  it.each(['btc-usd', 'BTC/USDT', 'btc_usdt', 'btcusdt', 'BTC-USD'])(
    'GET /fapi/v1/ticker/24hr normalizes %s to BTCUSDT',
    async (alias) => {
      const { status, body } = await get(`/fapi/v1/ticker/24hr?symbol=${encodeURIComponent(alias)}`);
      expect(status).toBe(200);
      expect(body.symbol).toBe('BTCUSDT');
      expect(body.count).toBe(0);
      expect(body.closeTime - body.openTime).toBe(24 * 3600 * 1000);
    },
  );

  it('GET /fapi/v1/ticker/24hr without a symbol lists every market', async () => {
    const { status, body } = await get('/fapi/v1/ticker/24hr');
    expect(status).toBe(200);
    expect(body.map((t: { symbol: string }) => t.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
  });

  it.each(['DOGEUSDT', 'doge-usd', 'BTC', '', 'ＢＴＣUSDT'])(
    'an absent symbol %p gives 400 -1121',
    async (symbol) => {
      const { status, body } = await get(`/fapi/v1/ticker/24hr?symbol=${encodeURIComponent(symbol)}`);
      expect(status).toBe(400);
      expect(body).toEqual({ code: -1121, msg: 'Invalid symbol.' });
    },
  );

  it('an unknown FAPI path answers 404 in the FAPI envelope, without a stack', async () => {
    const { status, body } = await get('/fapi/v1/nope');
    expect(status).toBe(404);
    expect(body).toEqual({ code: -1000, msg: 'Unknown endpoint GET /fapi/v1/nope' });
  });

  it('a malformed JSON body answers 400 -1102', async () => {
    const r = await fetch(`${ex.url}/fapi/v1/ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ code: -1102, msg: 'Malformed JSON body.' });
  });
});

describe('native market list', () => {
  let ex: InProcessExchange;
  beforeAll(async () => {
    ex = await startInProcessExchange();
  });
  afterAll(() => ex.close());

  it('GET /api/v1/markets lists markets with 24 h stats, rank, leverage and sort order', async () => {
    const r = await fetch(`${ex.url}/api/v1/markets`);
    expect(r.status).toBe(200);
    const body: any = await r.json();
    expect(body).toHaveLength(3);
    expect(body[0]).toMatchObject({
      symbol: 'BTCUSDT',
      base_asset: 'BTC',
      quote_asset: 'USDT',
      rank: 1,
      leverage: 125,
      sort_order: 1,
      volume_24h: '0.000',
      trades_24h: 0,
    });
  });

  it('an unknown native path answers 404 in the native envelope', async () => {
    const r = await fetch(`${ex.url}/api/v1/nope`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'Unknown endpoint GET /api/v1/nope', code: 'NOT_FOUND' });
  });
});
