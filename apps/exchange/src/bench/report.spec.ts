import { cpuRatios, problems, ratios, type Row, sameSizeRatios, table, targets } from './report';

const row = (id: string, perSecond: number, extra: Partial<Row> = {}): Row => {
  const [server, ...rest] = id.split('.');
  return {
    id,
    label: rest.join('.'),
    server: server as Row['server'],
    connections: 32,
    seconds: 10,
    responses: perSecond * 10,
    perSecond,
    p50Ms: 1,
    p99Ms: 5,
    p999Ms: 9,
    non2xx: 0,
    errors: 0,
    ...extra,
  };
};

describe('benchmark report', () => {
  const rows = [
    row('bare.orders.c1', 4000),
    row('bare.orders.c32', 10000),
    row('embedded.orders.c1', 1000, { p50Ms: 0.8 }),
    row('embedded.orders.c32', 4500),
    row('embedded.orders.paced', 1000, { p50Ms: 1.5, p99Ms: 12 }),
    // Each read row has its own bare row, measured beside it.
    row('bare.get.exchangeInfo.c32', 16000),
    row('embedded.exchangeInfo.c32', 12800),
    row('bare.get.ticker.c32', 16000),
    row('embedded.ticker.c32', 14000),
    row('bare.get.depth.c32', 16000),
    row('embedded.depth.c32', 13000),
    row('bare.get.bookTicker.c32', 12000),
    row('embedded.bookTicker.c32', 12000),
    row('bare.get.klines.c32', 16000),
    row('embedded.klines.c32', 9600),
  ];

  it('compares each row with the bare row of the same shape', () => {
    expect(ratios(rows)).toEqual({
      'embedded.orders.c1': 0.25,
      'embedded.orders.c32': 0.45,
      'embedded.exchangeInfo.c32': 0.8,
      'embedded.ticker.c32': 0.875,
      'embedded.depth.c32': 0.8125,
      'embedded.bookTicker.c32': 1,
      'embedded.klines.c32': 0.6,
    });
    expect(table(rows)).toContain('45.0 %');
  });

  it('compares each read with bare answering as many bytes, where that row ran (informational)', () => {
    const sized = [
      ...rows,
      row('bare.get.exchangeInfo.c32.sized', 14000),
      row('bare.get.ticker.c32.sized', 16000),
    ];
    expect(sameSizeRatios(sized)).toEqual({
      'embedded.exchangeInfo.c32': 0.9143,
      'embedded.ticker.c32': 0.875,
      'embedded.depth.c32': null,
      'embedded.bookTicker.c32': null,
      'embedded.klines.c32': null,
    });
    expect(sameSizeRatios(rows.filter((r) => r.id.includes('orders')))).toEqual({});
  });

  it('compares CPU per request with the bare row of the same shape, null where either is unknown', () => {
    const cpu = [
      row('bare.get.ticker.c32', 16000, { serverCpuUsPerRequest: 15 }),
      row('embedded.ticker.c32', 14000, { serverCpuUsPerRequest: 30 }),
      row('bare.get.depth.c32', 16000, { serverCpuUsPerRequest: 15 }),
      row('embedded.depth.c32', 13000),
    ];
    expect(cpuRatios(cpu)).toEqual({ 'embedded.ticker.c32': 0.5, 'embedded.depth.c32': null });
    expect(table(cpu)).toContain('50.0 %');
  });

  it("reports the issue's targets, latency ones only at the full rate, null for rows not run", () => {
    expect(targets(rows, true)).toEqual({
      ordersC32AtLeast40PctOfBare: true,
      pacedP50AtMost2ms: true,
      pacedP99AtMost10ms: false,
      oneConnectionP50AtMost1ms: true,
      readsAtLeast80PctOfBare: true,
      marketDataAtLeast80PctOfBare: false,
      clusterC32AtLeast1000PerSecond: null,
      clusterPaced500P50AtMost20ms: null,
      clusterPaced500P99AtMost100ms: null,
    });
    expect(targets(rows.slice(0, 2), false)).toEqual({
      ordersC32AtLeast40PctOfBare: null,
      pacedP50AtMost2ms: null,
      pacedP99AtMost10ms: null,
      oneConnectionP50AtMost1ms: null,
      readsAtLeast80PctOfBare: null,
      marketDataAtLeast80PctOfBare: null,
      clusterC32AtLeast1000PerSecond: null,
      clusterPaced500P50AtMost20ms: null,
      clusterPaced500P99AtMost100ms: null,
    });
  });

  it("reports issue 18's cluster targets (latency ones at the full rate only) and compares its 32-connection row with bare", () => {
    const cluster = [
      row('bare.orders.c32', 10000),
      row('cluster.orders.c32', 1200),
      row('cluster.orders.paced', 500, { p50Ms: 15, p99Ms: 140 }),
    ];
    expect(ratios(cluster)).toEqual({ 'cluster.orders.c32': 0.12 });
    expect(targets(cluster, true)).toMatchObject({
      clusterC32AtLeast1000PerSecond: true,
      clusterPaced500P50AtMost20ms: true,
      clusterPaced500P99AtMost100ms: false,
    });
    expect(targets(cluster, false)).toMatchObject({
      clusterPaced500P50AtMost20ms: null,
      clusterPaced500P99AtMost100ms: null,
    });
  });

  it('calls a run with refusals, errors or no answers not a benchmark, and tolerates a few', () => {
    expect(problems(rows)).toEqual([]);
    expect(problems([row('embedded.orders.c32', 100, { non2xx: 5, errors: 4 })])).toEqual([]);
    const broken = problems([
      row('embedded.orders.c32', 100, { non2xx: 30, refusals: ['400 {"code":-2019}'] }),
      row('postgres.orders.c1', 100, { notOrders: 11 }),
      row('embedded.ticker.c32', 0),
    ]);
    expect(broken).toHaveLength(3);
    expect(broken[0]).toContain('30 non-2xx');
    expect(broken[0]).toContain('-2019');
    expect(broken[2]).toContain('no answer');
  });
});
