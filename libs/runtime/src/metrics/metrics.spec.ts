import { Logger } from '@nestjs/common';
import { parsePrometheusText, sumOf } from '@perp/testing';
import { Metrics } from './metrics';

const scrape = async (metrics: Metrics) => parsePrometheusText(await metrics.scrape());

describe('Metrics', () => {
  it('serves its series and the process metrics, labelled with the app', async () => {
    const metrics = new Metrics();
    metrics.app = 'risk';
    metrics.engineCommandApplied('order.new');
    metrics.engineCommandApplied('order.new');
    metrics.engineCommandApplied('order.cancel');
    const samples = await scrape(metrics);
    const commands = (type: string) => sumOf(samples, 'perp_engine_commands_total', { type, app: 'risk' });
    expect([commands('order.new'), commands('order.cancel')]).toEqual([2, 1]);
    for (const processSeries of ['process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes'])
      expect(samples.find((s) => s.name === processSeries)?.labels).toEqual({ app: 'risk' });
  });

  it('keeps applications of one process apart (the embedded exchange beside test apps)', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.engineCommandApplied('order.new');
    expect(sumOf(await scrape(b), 'perp_engine_commands_total')).toBe(0);
    expect(sumOf(await scrape(a), 'perp_engine_commands_total')).toBe(1);
  });

  it('reads sampled gauges at scrape time, from every sampler still registered', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const metrics = new Metrics();
    let resting = 3;
    const remove = metrics.engineBookOrders.add(() => [{ labels: { symbol: 'BTCUSDT' }, value: resting }]);
    metrics.engineBookOrders.add(async () => [{ labels: { symbol: 'ETHUSDT' }, value: 1 }]);
    metrics.engineBookOrders.add(() => {
      throw new Error('a broken owner hides only its own series');
    });
    const books = async () =>
      (await scrape(metrics))
        .filter((s) => s.name === 'perp_engine_book_orders')
        .map((s) => [s.labels.symbol, s.value]);
    expect(await books()).toEqual([
      ['BTCUSDT', 3],
      ['ETHUSDT', 1],
    ]);
    resting = 5;
    expect(await books()).toContainEqual(['BTCUSDT', 5]);
    remove();
    expect(await books()).toEqual([['ETHUSDT', 1]]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('a broken owner hides only its own series'));
    warn.mockRestore();
  });

  it('takes the bus consumers’ batch sizes and lag', async () => {
    const metrics = new Metrics();
    const record = metrics.consumers.partition('engine', 'engine-commands', 3);
    record(4);
    record(1);
    metrics.consumers.lag(async () => [{ group: 'engine', topic: 'engine-commands', partition: 3, lag: 7 }]);
    const samples = await scrape(metrics);
    const labels = { group: 'engine', topic: 'engine-commands', partition: '3', app: 'perp' };
    expect(sumOf(samples, 'perp_bus_batch_size_messages_count', labels)).toBe(2);
    expect(sumOf(samples, 'perp_bus_batch_size_messages_sum', labels)).toBe(5);
    expect(sumOf(samples, 'perp_bus_consumer_lag_messages', labels)).toBe(7);
  });
});
