import { TOPICS } from '@perp/contracts';
import { parsePrometheusText, type PromSample, signed, sumOf } from '@perp/testing';
import { type InProcessExchange, startInProcessExchange } from './testing/in-process-exchange';
import { adminRequest, eventually, newTrader, type Trader } from './trading/trading.harness';

const BTC = 'BTCUSDT';

// Every app's modules in one process, over HTTP: GET /metrics, then a few orders, then the series
// they move (issue 17, part 2).
describe('GET /metrics on the embedded exchange', () => {
  let ex: InProcessExchange;
  let t: Trader;

  const scrape = async (): Promise<PromSample[]> => {
    const r = await fetch(`${ex.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await r.text());
  };
  const order = (method: 'POST' | 'DELETE', params: Record<string, string>) =>
    signed(ex.url, '/fapi/v1/order', t.key, { method, params });

  beforeAll(async () => {
    ex = await startInProcessExchange();
    t = await newTrader(ex.url);
    const dep = await adminRequest(ex.url, ex.adminToken, '/deposits', 'POST', {
      address: t.address,
      asset: 'USDT',
      amount: '10000',
    });
    expect(dep.status).toBe(200);
  });

  afterAll(async () => {
    await ex?.close();
  });

  it('serves Prometheus text with the process metrics, labelled with the app', async () => {
    const samples = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes'])
      expect(samples.find((s) => s.name === name)?.labels).toEqual({ app: 'exchange-test' });
    expect(sumOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  it('moves the HTTP, order, bus and engine series under a few orders', async () => {
    const before = await scrape();
    const ids: string[] = [];
    for (const price of ['40000', '40010', '40010']) {
      const r = await order('POST', { symbol: BTC, side: 'BUY', type: 'LIMIT', price, quantity: '0.01' });
      expect(r.status).toBe(200);
      ids.push(String((r.body as { orderId: unknown }).orderId));
    }
    expect((await order('DELETE', { symbol: BTC, orderId: ids[0]! })).status).toBe(200);
    expect((await order('POST', { symbol: BTC, side: 'BUY', type: 'LIMIT', price: '1' })).status).toBe(400);

    // Consumers count a batch once its handler returns, just after the replies it published.
    const engineBatches = { group: 'matching-engine', topic: TOPICS.engineCommands.name };
    const riskBatches = { group: 'risk', topic: TOPICS.riskCommands.name };
    const batches = (s: PromSample[], labels: Record<string, string>) =>
      sumOf(s, 'perp_bus_batch_size_messages_sum', labels);
    const after = await eventually(
      scrape,
      (s) => batches(s, engineBatches) - batches(before, engineBatches) >= 4,
    );
    const grew = (name: string, labels: Record<string, string> = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);

    const route = { method: 'POST', route: '/fapi/v1/order' };
    expect(grew('perp_http_request_duration_seconds_count', { ...route, status: '200' })).toBe(3);
    expect(grew('perp_http_request_duration_seconds_count', { ...route, status: '400' })).toBe(1);
    expect(
      grew('perp_http_request_duration_seconds_count', { method: 'DELETE', route: '/fapi/v1/order' }),
    ).toBe(1);
    expect(grew('perp_http_request_duration_seconds_sum', route)).toBeGreaterThan(0);
    // The route pattern, never a URL with its query.
    expect(after.some((s) => s.labels.route?.includes('?'))).toBe(false);

    const command = (c: string) => ({ command: c, outcome: 'ok' });
    expect(grew('perp_gateway_command_duration_seconds_count', command('order.new'))).toBe(3);
    expect(grew('perp_gateway_command_duration_seconds_count', command('order.cancel'))).toBe(1);
    expect(
      grew('perp_gateway_command_duration_seconds_bucket', { ...command('order.new'), le: '+Inf' }),
    ).toBe(3);

    expect(grew('perp_engine_commands_total', { type: 'order.place' })).toBe(3);
    expect(grew('perp_engine_commands_total', { type: 'order.cancel' })).toBe(1);
    expect(sumOf(after, 'perp_engine_book_orders', { symbol: BTC })).toBe(2);
    expect(sumOf(after, 'perp_engine_book_levels', { symbol: BTC, side: 'bid' })).toBe(1);
    expect(sumOf(after, 'perp_engine_book_levels', { symbol: BTC, side: 'ask' })).toBe(0);

    expect(batches(after, engineBatches) - batches(before, engineBatches)).toBeGreaterThanOrEqual(4);
    expect(batches(after, riskBatches) - batches(before, riskBatches)).toBeGreaterThanOrEqual(4);
    const lag = after.filter((s) => s.name === 'perp_bus_consumer_lag_messages');
    expect(lag.map((s) => s.labels.group)).toEqual(expect.arrayContaining(['matching-engine', 'risk']));
    expect(lag.every((s) => s.value >= 0 && s.labels.topic && s.labels.partition)).toBe(true);
  }, 30_000);
});
