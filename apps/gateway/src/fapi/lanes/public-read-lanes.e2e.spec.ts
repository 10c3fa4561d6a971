import { type InProcessExchange, startInProcessExchange } from '@perp/exchange';
import { HttpFastLanes, Metrics } from '@perp/runtime';

jest.setTimeout(60_000);

// A query with one percent-encoded character (`%55` is `U`) is not plain, so the same request goes
// through Fastify and Nest: each answer of a fast lane must equal that one (times aside).
describe('public read fast lanes answer as the Nest routes do', () => {
  let ex: InProcessExchange;
  // Below the 40 of a ticker of every market, above every other row's weight: that one is refused
  // from a fresh window, deterministically.
  const ceiling = 30;
  let clients = 0;
  /** A client address of its own per request (trusted proxy: loopback), so each starts a fresh window. */
  const freshIp = () => `10.9.${Math.floor(++clients / 250)}.${clients % 250}`;

  beforeAll(async () => {
    ex = await startInProcessExchange({
      RATE_LIMIT_WEIGHT_PER_MIN: String(ceiling),
      TRUSTED_PROXIES: '127.0.0.1',
    });
  });
  afterAll(() => ex?.close());

  const TIMES = /"(E|T|serverTime|openTime|closeTime|time)":\d+/g;
  const answer = async (path: string, ip = freshIp()) => {
    const r = await fetch(`${ex.url}${path}`, { headers: { 'x-forwarded-for': ip } });
    // The time a window has left may cross a second between two requests.
    const headers = Object.fromEntries(
      [...r.headers].filter(([name]) => !['date', 'retry-after'].includes(name)),
    );
    const retryAfter = r.headers.get('retry-after');
    return {
      status: r.status,
      headers,
      retryAfter: retryAfter !== null,
      body: (await r.text()).replace(TIMES, '"$1":0'),
    };
  };
  const viaNest = (path: string) =>
    path.includes('USDT') ? path.replace('USDT', '%55SDT') : `${path}?x=%31`;
  const taken = () => ex.app.get(HttpFastLanes).taken;

  it.each([
    '/fapi/v1/exchangeInfo',
    '/fapi/v1/depth?symbol=BTCUSDT&limit=5',
    '/fapi/v1/depth?symbol=BTCUSDT',
    '/fapi/v1/depth?symbol=BTCUSDT&limit=7',
    '/fapi/v1/depth?symbol=NOPEUSDT',
    '/fapi/v1/ticker/24hr?symbol=BTCUSDT',
    '/fapi/v1/ticker/24hr?symbol=',
    '/fapi/v1/ticker/price?symbol=BTCUSDT',
    '/fapi/v2/ticker/price?symbol=BTCUSDT',
    '/fapi/v1/ticker/bookTicker?symbol=BTCUSDT',
    '/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=5',
    '/fapi/v1/klines?symbol=BTCUSDT&interval=1x',
    '/fapi/v1/klines?symbol=BTCUSDT',
    '/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=0',
  ])('%s: status, headers (weight included), body', async (path) => {
    const before = taken();
    const fast = await answer(path);
    expect(taken()).toBe(before + 1);
    expect(fast.headers['x-mbx-used-weight-1m']).toMatch(/^\d+$/);
    expect(fast).toEqual(await answer(viaNest(path)));
    expect(taken()).toBe(before + 1);
  });

  it('past the weight ceiling: the same 429 -1003 with Retry-After (a refusal counts nothing)', async () => {
    const ip = freshIp();
    const before = taken();
    const fast = await answer('/fapi/v1/ticker/24hr', ip);
    expect(taken()).toBe(before + 1);
    expect([fast.status, fast.retryAfter, JSON.parse(fast.body).code]).toEqual([429, true, -1003]);
    expect(fast).toEqual(await answer('/fapi/v1/ticker/24hr?x=%31', ip));
  });

  it('counts each answer in the request-duration histogram, by route and status', async () => {
    const count = async (status: number) => {
      const text = await ex.app.get(Metrics).registry.metrics();
      const series = `perp_http_request_duration_seconds_count{method="GET",route="/fapi/v1/ticker/price",status="${status}"`;
      const line = text.split('\n').find((l) => l.startsWith(series));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const [ok, bad] = [await count(200), await count(400)];
    for (let i = 0; i < 3; i++) await answer('/fapi/v1/ticker/price?symbol=BTCUSDT');
    await answer('/fapi/v1/ticker/price?symbol=NOPE');
    expect([await count(200), await count(400)]).toEqual([ok + 3, bad + 1]);
  });
});
