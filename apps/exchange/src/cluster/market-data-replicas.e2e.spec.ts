import { TEST_ADMIN_TOKEN } from '../testing/in-process-exchange';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster-environment.harness';
import { fund, runStep, scriptTraders, tradingScript } from './trading-script.harness';

/** Public reads a bot makes; each must answer the same on every gateway replica. */
const READS = [
  '/fapi/v1/depth?symbol=BTCUSDT&limit=50',
  '/fapi/v1/depth?symbol=ETHUSDT',
  '/fapi/v1/trades?symbol=BTCUSDT',
  '/fapi/v1/aggTrades?symbol=ETHUSDT',
  '/fapi/v1/klines?symbol=BTCUSDT&interval=1m',
  '/fapi/v1/klines?symbol=ETHUSDT&interval=3m',
  '/fapi/v1/klines?symbol=BTCUSDT&interval=1M',
  '/fapi/v1/ticker/24hr',
  '/fapi/v1/ticker/price',
  '/fapi/v1/ticker/bookTicker',
  '/fapi/v1/openInterest?symbol=BTCUSDT',
  '/futures/data/openInterestHist?symbol=BTCUSDT&period=5m',
  '/futures/data/takerlongshortRatio?symbol=ETHUSDT&period=15m',
  '/futures/data/topLongShortAccountRatio?symbol=BTCUSDT&period=5m',
  '/futures/data/topLongShortPositionRatio?symbol=BTCUSDT&period=1h',
  '/futures/data/globalLongShortAccountRatio?symbol=ETHUSDT&period=5m',
  '/api/v1/markets',
];

/** Fields that carry the answering server's clock, not the projection. */
const CLOCK_FIELDS = new Set(['E', 'T', 'time', 'serverTime']);
function withoutClock(v: unknown, path: string): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutClock(x, path));
  if (v && typeof v === 'object') {
    // A ticker of a symbol that never traded spans the 24 h before the answering server's clock.
    const idle = (v as { count?: number }).count === 0;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !(CLOCK_FIELDS.has(k) && !path.includes('rades')))
        .filter(([k]) => !(idle && (k === 'openTime' || k === 'closeTime')))
        .map(([k, x]) => [k, withoutClock(x, path)]),
    );
  }
  return v;
}

async function read(url: string, path: string): Promise<unknown> {
  const r = await fetch(url + path);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return withoutClock(await r.json(), path);
}

// DESIGN.md: "nothing a client sees depends on which replica it hit". Market data is projected once
// (by market-data, into Postgres and Redis) and served by every gateway from there.
describe('market data on two gateway replicas (real processes, Kafka mock)', () => {
  let cluster: ClusterEnvironment | undefined;

  afterAll(() => cluster?.close());

  it('answers identical book, trades, klines, tickers and statistics on both replicas', async () => {
    cluster = await openClusterEnvironment('md', 11, {
      PRICE_SOURCE: 'admin',
      // The test polls every public read until the replicas settle.
      RATE_LIMIT_WEIGHT_PER_MIN: '1000000',
    });
    const gateways = await cluster.startAll(['gateway', 'gateway', 'matching-engine', 'risk', 'market-data']);
    const [one, two] = gateways.map((g) => g.url) as [string, string];
    const traders = await scriptTraders(one);
    await fund(one, TEST_ADMIN_TOKEN, traders);
    // The session without its final cancels, so the books keep resting levels; steps alternate
    // between the replicas.
    const script = tradingScript().filter((s) => s.kind !== 'cancelAll');
    for (const [i, step] of script.entries()) {
      const r = await runStep(i % 2 ? two : one, TEST_ADMIN_TOKEN, traders, step);
      if (r.status !== 200 && r.status !== 400)
        throw new Error(`${JSON.stringify(step)}: ${r.status} ${r.text}`);
    }

    // Market data lags the replies a little: wait until both replicas agree and stop changing.
    const snapshot = async (url: string) => Promise.all(READS.map((p) => read(url, p)));
    const deadline = Date.now() + 60_000;
    let previous = '';
    for (;;) {
      const [a, b] = await Promise.all([snapshot(one), snapshot(two)]);
      const same = JSON.stringify(a) === JSON.stringify(b);
      if ((same && JSON.stringify(a) === previous) || Date.now() > deadline) {
        expect(b).toEqual(a);
        break;
      }
      previous = JSON.stringify(a);
      await new Promise((r) => setTimeout(r, 500));
    }
    const [depth, , trades, , , , , tickers] = await snapshot(one);
    expect((depth as { bids: unknown[]; asks: unknown[] }).asks.length).toBeGreaterThan(0);
    expect((trades as unknown[]).length).toBeGreaterThan(3);
    const traded = (tickers as { symbol: string; count: number }[]).filter((t) => t.count > 0);
    expect(traded.map((t) => t.symbol).sort()).toEqual(['BTCUSDT', 'ETHUSDT']);
  }, 300_000);
});
