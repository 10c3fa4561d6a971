import { parsePrometheusText } from '@perp/testing';
import { lagBetween, lagHistogram } from './market-data-lag';

const scrape = (counts: [string, number][], sum: number) =>
  parsePrometheusText(
    [
      ...counts.map(([le, n]) => `perp_market_data_lag_seconds_bucket{le="${le}",app="perp"} ${n}`),
      `perp_market_data_lag_seconds_sum{app="perp"} ${sum}`,
      `perp_market_data_lag_seconds_count{app="perp"} ${counts[counts.length - 1]![1]}`,
    ].join('\n'),
  );

describe('market-data lag between two scrapes', () => {
  it('counts only the turns in between: their mean and the bucket 99 % stayed under', () => {
    const before = lagHistogram(
      scrape(
        [
          ['0.01', 5],
          ['0.05', 5],
          ['0.1', 5],
          ['+Inf', 5],
        ],
        0.02,
      ),
    );
    const after = lagHistogram(
      scrape(
        [
          ['0.01', 5],
          ['0.05', 104],
          ['0.1', 105],
          ['+Inf', 105],
        ],
        0.02 + 100 * 0.03,
      ),
    );
    expect(lagBetween(before, after)).toEqual({ turns: 100, meanMs: 30, p99AtMostMs: 50 });
  });

  it('has no figure without turns, and no bound past the last finite bucket', () => {
    const empty = lagHistogram(scrape([['+Inf', 0]], 0));
    expect(lagBetween(empty, empty)).toEqual({ turns: 0, meanMs: null, p99AtMostMs: null });
    const slow = lagHistogram(
      scrape(
        [
          ['0.1', 0],
          ['+Inf', 10],
        ],
        50,
      ),
    );
    expect(lagBetween(empty, slow)).toEqual({ turns: 10, meanMs: 5000, p99AtMostMs: null });
  });
});
