import { parsePrometheusText } from '@perp/testing';
import { histogramBetween, histogramOf, HTTP_REQUEST_DURATION, MARKET_DATA_LAG } from './scraped-histogram';

const scrape = (name: string, counts: [string, number][], sum: number, labels = 'app="perp"') =>
  [
    ...counts.map(([le, n]) => `${name}_bucket{le="${le}",${labels}} ${n}`),
    `${name}_sum{${labels}} ${sum}`,
    `${name}_count{${labels}} ${counts[counts.length - 1]![1]}`,
  ].join('\n');
const lag = (counts: [string, number][], sum: number) =>
  histogramOf(parsePrometheusText(scrape(MARKET_DATA_LAG, counts, sum)), MARKET_DATA_LAG);

describe('a histogram between two scrapes', () => {
  it('counts only the observations in between: their mean and the buckets half and 99 % stayed under', () => {
    const before = lag(
      [
        ['0.01', 5],
        ['0.05', 5],
        ['0.1', 5],
        ['+Inf', 5],
      ],
      0.02,
    );
    const after = lag(
      [
        ['0.01', 5],
        ['0.05', 104],
        ['0.1', 105],
        ['+Inf', 105],
      ],
      0.02 + 100 * 0.03,
    );
    expect(histogramBetween(before, after)).toEqual({
      count: 100,
      meanMs: 30,
      p50AtMostMs: 50,
      p99AtMostMs: 50,
    });
  });

  it('has no figure without observations, and no bound past the last finite bucket', () => {
    const empty = lag([['+Inf', 0]], 0);
    expect(histogramBetween(empty, empty)).toEqual({
      count: 0,
      meanMs: null,
      p50AtMostMs: null,
      p99AtMostMs: null,
    });
    const slow = lag(
      [
        ['0.1', 0],
        ['+Inf', 10],
      ],
      50,
    );
    expect(histogramBetween(empty, slow)).toEqual({
      count: 10,
      meanMs: 5000,
      p50AtMostMs: null,
      p99AtMostMs: null,
    });
  });

  it('sums the series with the labels asked (every status of one route) and leaves the others out', () => {
    const text = (orders: [number, number], other: number, sum: number) =>
      [
        scrape(
          HTTP_REQUEST_DURATION,
          [
            ['0.001', orders[0]],
            ['0.0025', orders[0] + 1],
            ['+Inf', orders[0] + 1],
          ],
          sum,
          'method="POST",route="/fapi/v1/order",status="200"',
        ),
        scrape(
          HTTP_REQUEST_DURATION,
          [
            ['0.001', 0],
            ['0.0025', orders[1]],
            ['+Inf', orders[1]],
          ],
          0.002 * orders[1],
          'method="POST",route="/fapi/v1/order",status="400"',
        ),
        scrape(
          HTTP_REQUEST_DURATION,
          [['+Inf', other]],
          9,
          'method="GET",route="/fapi/v1/depth",status="200"',
        ),
      ].join('\n');
    const of = (t: string) =>
      histogramOf(parsePrometheusText(t), HTTP_REQUEST_DURATION, { method: 'POST', route: '/fapi/v1/order' });
    const between = histogramBetween(of(text([0, 0], 5, 0.002)), of(text([6, 3], 50, 0.002 + 0.005)));
    // 6 answered within 1 ms, 3 more within 2.5 ms; the depth reads are not counted.
    expect(between).toEqual({ count: 9, meanMs: 1.2, p50AtMostMs: 1, p99AtMostMs: 2.5 });
  });
});
