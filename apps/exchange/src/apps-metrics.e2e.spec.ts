import { TOPICS } from '@perp/contracts';
import { parsePrometheusText, type PromSample, type RunningApp, signed, sumOf } from '@perp/testing';
import { type ClusterEnvironment, openClusterEnvironment } from './cluster/cluster-environment.harness';
import { TEST_ADMIN_TOKEN } from './testing/in-process-exchange';
import { adminRequest, deposit, eventually, newTrader } from './trading/trading.harness';

const APPS = ['gateway', 'matching-engine', 'risk', 'market-data', 'funding', 'keeper'] as const;
type App = (typeof APPS)[number];
const BTC = 'BTCUSDT';

async function scrape(app: RunningApp): Promise<PromSample[]> {
  const r = await fetch(`${app.url}/metrics`);
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return parsePrometheusText(await r.text());
}

// Each app as its own process over Kafka (the mock cluster), as deployed: a short session of
// orders and a market pause, then every app's /metrics shows its own series moving (issue 17).
describe('GET /metrics of every app in a cluster (real processes, Kafka mock)', () => {
  let cluster: ClusterEnvironment | undefined;
  const apps = new Map<App, RunningApp>();

  afterAll(() => cluster?.close());

  it('moves HTTP, order, bus, engine and book series in the apps that own them', async () => {
    cluster = await openClusterEnvironment('metrics', 14);
    const started = await cluster.startAll(APPS);
    APPS.forEach((app, i) => apps.set(app, started[i]));
    const url = apps.get('gateway')!.url;

    const trader = await newTrader(url);
    await deposit(url, TEST_ADMIN_TOKEN, trader.address, '10000');
    const order = (method: 'POST' | 'DELETE', params: Record<string, string>) =>
      signed(url, '/fapi/v1/order', trader.key, { method, params });
    const before = new Map<App, PromSample[]>();
    for (const app of APPS) before.set(app, await scrape(apps.get(app)!));

    const ids: string[] = [];
    for (const price of ['40000', '40010', '40010']) {
      const r = await order('POST', { symbol: BTC, side: 'BUY', type: 'LIMIT', price, quantity: '0.01' });
      expect(r.status).toBe(200);
      ids.push(String((r.body as { orderId: unknown }).orderId));
    }
    expect((await order('DELETE', { symbol: BTC, orderId: ids[0]! })).status).toBe(200);
    // A market change reaches every process through the markets topic.
    for (const action of ['pause', 'resume'])
      expect((await adminRequest(url, TEST_ADMIN_TOKEN, `/markets/ETHUSDT/${action}`, 'POST')).status).toBe(
        200,
      );

    const markets = { topic: TOPICS.markets.name };
    const grew = (app: App, now: PromSample[], name: string, labels: Record<string, string> = {}) =>
      sumOf(now, name, labels) - sumOf(before.get(app)!, name, labels);
    // Each app is read until its consumers have counted the session (a batch counts once handled).
    const settled = async (app: App, done: (now: PromSample[]) => boolean) =>
      eventually(() => scrape(apps.get(app)!), done, 60_000);

    for (const app of APPS) {
      const now = await settled(app, (s) => grew(app, s, 'perp_bus_batch_size_messages_sum', markets) >= 2);
      expect(grew(app, now, 'perp_bus_batch_size_messages_sum', markets)).toBeGreaterThanOrEqual(2);
      const lag = now.filter(
        (s) => s.name === 'perp_bus_consumer_lag_messages' && s.labels.topic === markets.topic,
      );
      expect(lag.length).toBeGreaterThan(0);
      expect(lag.map((s) => [s.labels.app, s.value])).toEqual(lag.map(() => [app, 0]));
      expect(sumOf(now, 'process_resident_memory_bytes', { app })).toBeGreaterThan(0);
    }

    const gateway = await scrape(apps.get('gateway')!);
    const route = { method: 'POST', route: '/fapi/v1/order', status: '200' };
    expect(grew('gateway', gateway, 'perp_http_request_duration_seconds_count', route)).toBe(3);
    const ok = (command: string) => ({ command, outcome: 'ok' });
    expect(grew('gateway', gateway, 'perp_gateway_command_duration_seconds_count', ok('order.new'))).toBe(3);
    expect(grew('gateway', gateway, 'perp_gateway_command_duration_seconds_count', ok('order.cancel'))).toBe(
      1,
    );

    const riskCommands = { group: 'risk', topic: TOPICS.riskCommands.name };
    const risk = await settled(
      'risk',
      (s) => grew('risk', s, 'perp_bus_batch_size_messages_sum', riskCommands) >= 4,
    );
    expect(grew('risk', risk, 'perp_bus_batch_size_messages_sum', riskCommands)).toBeGreaterThanOrEqual(4);
    expect(risk.some((s) => s.name === 'perp_bus_consumer_lag_messages' && s.labels.group === 'risk')).toBe(
      true,
    );

    const engine = await scrape(apps.get('matching-engine')!);
    expect(grew('matching-engine', engine, 'perp_engine_commands_total', { type: 'order.place' })).toBe(3);
    expect(grew('matching-engine', engine, 'perp_engine_commands_total', { type: 'order.cancel' })).toBe(1);
    expect(grew('matching-engine', engine, 'perp_engine_commands_total', { type: 'market.status' })).toBe(2);
    expect(sumOf(engine, 'perp_engine_book_orders', { symbol: BTC })).toBe(2);
    expect(sumOf(engine, 'perp_engine_book_levels', { symbol: BTC, side: 'bid' })).toBe(1);

    const engineEvents = { topic: TOPICS.engineEvents.name };
    const marketData = await settled(
      'market-data',
      (s) => grew('market-data', s, 'perp_bus_batch_size_messages_sum', engineEvents) > 0,
    );
    expect(grew('market-data', marketData, 'perp_bus_batch_size_messages_sum', engineEvents)).toBeGreaterThan(
      0,
    );
  }, 420_000);
});
