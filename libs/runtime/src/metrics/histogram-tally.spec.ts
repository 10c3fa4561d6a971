import { Histogram, Registry } from 'prom-client';
import { HistogramTally } from './histogram-tally';

const histogram = (registry: Registry, tally?: () => HistogramTally) =>
  new Histogram({
    name: 'h_seconds',
    help: 'h',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.01, 0.1],
    registers: [registry],
    collect: () => tally?.().flush(),
  });

/** The exposition's lines, sorted: a tallied series is created at its first scrape, so it may come later. */
const lines = async (registry: Registry) => (await registry.metrics()).split('\n').sort();

describe('HistogramTally', () => {
  const values = [0.0005, 0.001, 0.002, 0.05, 0.5, 3, 0.0001];

  it('scrapes the same as observing every value, across flushes and beside observed series', async () => {
    const plainRegistry = new Registry();
    const plain = histogram(plainRegistry);
    const talliedRegistry = new Registry();
    let tally: HistogramTally | undefined = undefined;
    const tallied = histogram(talliedRegistry, () => tally!);
    tally = new HistogramTally(tallied);

    const ok = tally.series({ route: '/a', status: '200' });
    const bad = tally.series({ route: '/a', status: '400' });
    for (const v of values) {
      plain.observe({ route: '/a', status: '200' }, v);
      ok(v);
    }
    plain.observe({ route: '/b', status: '200' }, 0.02);
    tallied.observe({ route: '/b', status: '200' }, 0.02); // the same series family, observed directly
    expect(await lines(talliedRegistry)).toEqual(await lines(plainRegistry));

    plain.observe({ route: '/a', status: '200' }, 0.003);
    plain.observe({ route: '/a', status: '400' }, 0.2);
    ok(0.003);
    bad(0.2);
    expect(await lines(talliedRegistry)).toEqual(await lines(plainRegistry));
    expect(await lines(talliedRegistry)).toEqual(await lines(plainRegistry)); // nothing counted twice
  });

  it('counts again after the histogram is reset', async () => {
    const registry = new Registry();
    let tally: HistogramTally | undefined = undefined;
    const h = histogram(registry, () => tally!);
    tally = new HistogramTally(h);
    const ok = tally.series({ route: '/a', status: '200' });
    ok(0.002);
    await registry.metrics();
    h.reset();
    ok(0.002);
    expect(await registry.metrics()).toContain('h_seconds_count{route="/a",status="200"} 1');
  });

  it('refuses a value that is not a number, as observe does', () => {
    const tally = new HistogramTally(histogram(new Registry()));
    expect(() => tally.series({ route: '/a', status: '200' })(Number.NaN)).toThrow(TypeError);
  });

  it('observes by label set, one series per set, the same as observing each value', async () => {
    const plainRegistry = new Registry();
    const plain = histogram(plainRegistry);
    const talliedRegistry = new Registry();
    let tally: HistogramTally | undefined = undefined;
    tally = new HistogramTally(histogram(talliedRegistry, () => tally!));
    const sets = [
      { route: '/a', status: '200' },
      { route: '/a', status: '400' },
      { status: '200', route: '/a' }, // another key order: the same series
      { route: '/b', status: '200' },
    ];
    for (const [i, v] of values.entries()) {
      const labels = sets[i % sets.length]!;
      plain.observe(labels, v);
      tally.observe(labels, v);
    }
    expect(await lines(talliedRegistry)).toEqual(await lines(plainRegistry));
    expect(await talliedRegistry.metrics()).toContain('h_seconds_count{route="/a",status="200"} 4');
  });

  it('drops the series of an owner that is gone, observed and tallied alike', async () => {
    const registry = new Registry();
    let tally: HistogramTally | undefined = undefined;
    tally = new HistogramTally(histogram(registry, () => tally!));
    for (let i = 0; i < 100; i++) {
      tally.series({ route: `/gone/${i}`, status: '200' })(0.002);
      tally.observe({ route: `/gone/${i}`, status: '500' }, 0.002);
    }
    tally.series({ route: '/kept', status: '200' })(0.002);
    await registry.metrics();
    tally.drop((labels) => labels['route']!.startsWith('/gone/'));
    const counts = (await lines(registry)).filter((l) => l.startsWith('h_seconds_count'));
    expect(counts).toEqual(['h_seconds_count{route="/kept",status="200"} 1']);
    // A label set seen again after the drop is a new series.
    tally.observe({ route: '/gone/1', status: '500' }, 0.002);
    expect(await registry.metrics()).toContain('h_seconds_count{route="/gone/1",status="500"} 1');
  });
});
