import { Bus } from '@perp/bus';
import { TOPICS } from '@perp/contracts';
import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';

describe('admin market changes', () => {
  let ex: InProcessExchange;
  const admin = async (path: string, body?: unknown, token: string | null = ex.adminToken) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${ex.url}/admin/v1${path}`, {
      method: 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const statusOf = async (symbol: string) => {
    const info = (await (await fetch(`${ex.url}/fapi/v1/exchangeInfo`)).json()) as any;
    return info.symbols.find((s: { symbol: string }) => s.symbol === symbol)?.status;
  };

  beforeAll(async () => {
    ex = await startInProcessExchange();
  });
  afterAll(() => ex.close());

  it.each([
    ['no token', null],
    ['a wrong token', 'not-the-admin-token-at-all'],
    ['an empty token', ''],
  ])('refuses %s with 401 and changes nothing', async (_name, token) => {
    const r = await admin('/markets/BTCUSDT/pause', undefined, token);
    expect(r).toEqual({ status: 401, body: { error: 'admin bearer token required', code: 'INVALID_TOKEN' } });
    expect(await statusOf('BTCUSDT')).toBe('TRADING');
  });

  it('pauses, resumes and delists a market by any alias; delisting is final', async () => {
    const paused = await admin('/markets/sol-usd/pause');
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ symbol: 'SOLUSDT', status: 'HALT' });
    expect(await statusOf('SOLUSDT')).toBe('HALT');

    expect((await admin('/markets/SOLUSDT/resume')).body.status).toBe('TRADING');
    expect(await statusOf('SOLUSDT')).toBe('TRADING');

    expect((await admin('/markets/SOLUSDT/delist')).body.status).toBe('CLOSE');
    expect(await statusOf('SOLUSDT')).toBe('CLOSE');
    expect(await admin('/markets/SOLUSDT/resume')).toEqual({
      status: 409,
      body: { error: 'market SOLUSDT is delisted', code: 'MARKET_DELISTED' },
    });
  });

  it('answers 404 INVALID_MARKET for an unknown market', async () => {
    expect(await admin('/markets/DOGEUSDT/pause')).toEqual({
      status: 404,
      body: { error: 'market DOGEUSDT not found', code: 'INVALID_MARKET' },
    });
  });

  it('adds a market that then trades in exchangeInfo; a second add is refused', async () => {
    const avax = {
      symbol: 'AVAX-USD',
      baseAsset: 'AVAX',
      quoteAsset: 'USDT',
      tickSize: '0.001',
      lotSize: '0.1',
      minOrderSizeUsd: '5',
      maxOrderSizeUsd: '500000',
      maxLeverage: 20,
      defaultLeverage: 10,
      maxLongOi: '100000',
      maxShortOi: '100000',
      rank: 4,
      sortOrder: 4,
      maintenanceBrackets: [{ notionalCap: '1000000', maintMarginRatio: '0.025', maxLeverage: 20 }],
    };
    const added = await admin('/markets', avax);
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      symbol: 'AVAXUSDT',
      status: 'TRADING',
      pricePrecision: 3,
      quantityPrecision: 1,
    });
    expect(await statusOf('AVAXUSDT')).toBe('TRADING');
    const again = await admin('/markets', avax);
    expect(again).toEqual({
      status: 409,
      body: { error: 'market AVAXUSDT already exists', code: 'MARKET_EXISTS' },
    });
  });

  it('refuses an invalid market with 400 and the field named', async () => {
    const r = await admin('/markets', { symbol: 'BADUSDT', tickSize: '0' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_REQUEST');
    expect(r.body.error).toContain('tickSize');
    expect(await statusOf('BADUSDT')).toBeUndefined();
  });

  it('index price pushes of one symbol sent together each answer with their own figures, in order', async () => {
    const prices = ['50000', '50100', '50200'];
    const answers = await Promise.all(prices.map((p) => admin('/prices/BTCUSDT', { indexPrice: p })));
    expect(answers.map((a) => [a.status, a.body.indexPrice])).toEqual(prices.map((p) => [200, p]));
    const times = answers.map((a) => a.body.time as number);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const premium = (await (await fetch(`${ex.url}/fapi/v1/premiumIndex?symbol=BTCUSDT`)).json()) as any;
    expect(premium.indexPrice).toMatch(/^50200(\.0+)?$/);
  });

  it('refuses a definition the engine would refuse before it reaches the log (a NUL in the symbol once answered 500)', async () => {
    const bus = ex.app.get(Bus);
    const before = await bus.endOffsets(TOPICS.engineCommands.name);
    for (const body of [
      { symbol: 'a\u0000b', lotSize: '../..', maxLeverage: '[]' },
      { symbol: 'BTC\u{1F600}USDT' },
      {
        symbol: 'NEWUSDT',
        baseAsset: 'NEW',
        tickSize: '0.1',
        lotSize: '0.001',
        maxLeverage: 10,
        defaultLeverage: 20,
      },
    ]) {
      const r = await admin('/markets', body);
      expect([body, r.status, r.body.code]).toEqual([body, 400, 'INVALID_REQUEST']);
      expect(r.body.error).toMatch(/^Invalid market definition: /);
    }
    expect(await bus.endOffsets(TOPICS.engineCommands.name)).toEqual(before);
  });
});
