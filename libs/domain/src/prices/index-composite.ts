import { Money, parseDecimal } from '../money/money';

/** What became of one configured source in a composite. */
export const INDEX_SOURCE_STATES = [
  /** Fresh, in line with the others: part of the median. */
  'USED',
  /** Its latest reading is older than the source's max age. */
  'STALE',
  /** Further than the allowed deviation from the median of the fresh sources. */
  'DEVIATION',
  /** A reading that is not a positive decimal. */
  'INVALID',
  /** No reading yet (an adapter that never answered, an operator who never pushed). */
  'NO_DATA',
  /** The source's circuit breaker is open: its last reading is not trusted, however recent. */
  'CIRCUIT_OPEN',
] as const;
export type IndexSourceState = (typeof INDEX_SOURCE_STATES)[number];

/** Why a market has no index price. */
export const INDEX_UNAVAILABLE_REASONS = [
  /** Every source is stale, invalid or without data, or some circuits are open and the rest so. */
  'NO_FRESH_SOURCE',
  /** Fresh sources exist but every one of them deviates: they disagree and none can be trusted. */
  'SOURCES_DISAGREE',
  /** Every source's circuit breaker is open. */
  'CIRCUIT_OPEN',
] as const;
export type IndexUnavailableReason = (typeof INDEX_UNAVAILABLE_REASONS)[number];

export interface IndexSourceReading {
  /** Decimal string. */
  price: string;
  /** When the source observed the price (ms since the epoch), e.g. a Chainlink round's updatedAt. */
  time: number;
}

export interface IndexSourceInput {
  name: string;
  /** Weight in the weighted median: a positive decimal string. */
  weight: string;
  /** A reading older than this (now − time > maxAgeMs) is stale. */
  maxAgeMs: number;
  /** The source's latest good reading, if it ever gave one. */
  reading?: IndexSourceReading;
  circuitOpen?: boolean;
}

export interface IndexCompositeRules {
  now: number;
  /**
   * A fresh source further than this many percent from the median of the fresh sources is dropped
   * (none dropped when absent).
   */
  maxDeviationPercent?: string;
}

export interface IndexSourceVerdict {
  name: string;
  state: IndexSourceState;
  price?: string;
  time?: number;
}

export type IndexComposite =
  | { status: 'AVAILABLE'; price: string; sources: IndexSourceVerdict[] }
  | { status: 'UNAVAILABLE'; reason: IndexUnavailableReason; sources: IndexSourceVerdict[] };

/**
 * The index price of one market from its sources: the weighted median of the fresh sources that
 * pass the deviation guard. The deviation is measured from the plain median of all fresh sources,
 * as Binance's index does, not from the median of the others: with three sources the "others" are
 * two and their median is their mean, so one outlier would drag the reference away and drop the
 * two good sources with it. With two sources more than twice the allowed deviation apart, both
 * are dropped: nothing tells which one is right.
 */
export function composeIndexPrice(
  sources: readonly IndexSourceInput[],
  rules: IndexCompositeRules,
): IndexComposite {
  const verdicts: IndexSourceVerdict[] = sources.map((s) => ({
    name: s.name,
    state: readingState(s, rules.now),
    ...(s.reading && { price: s.reading.price, time: s.reading.time }),
  }));
  const fresh = verdicts.flatMap((v, i) =>
    v.state === 'USED'
      ? [{ verdict: v, price: new Money(v.price!), weight: new Money(sources[i]!.weight) }]
      : [],
  );
  if (fresh.length === 0) {
    const allOpen = sources.length > 0 && verdicts.every((v) => v.state === 'CIRCUIT_OPEN');
    return { status: 'UNAVAILABLE', reason: allOpen ? 'CIRCUIT_OPEN' : 'NO_FRESH_SOURCE', sources: verdicts };
  }
  if (rules.maxDeviationPercent !== undefined) {
    const limit = new Money(rules.maxDeviationPercent).div(100);
    const reference = median(fresh.map((f) => f.price));
    for (const f of fresh)
      if (f.price.minus(reference).abs().div(reference).gt(limit)) f.verdict.state = 'DEVIATION';
  }
  const used = fresh.filter((f) => f.verdict.state === 'USED');
  if (used.length === 0) return { status: 'UNAVAILABLE', reason: 'SOURCES_DISAGREE', sources: verdicts };
  return { status: 'AVAILABLE', price: weightedMedian(used).toFixed(), sources: verdicts };
}

function readingState(source: IndexSourceInput, now: number): IndexSourceState {
  if (source.circuitOpen) return 'CIRCUIT_OPEN';
  if (!source.reading) return 'NO_DATA';
  if (parseDecimal(source.reading.price)?.gt(0) !== true || !Number.isFinite(source.reading.time))
    return 'INVALID';
  // A reading from slightly ahead of our clock (another machine's clock, a block time) is fresh.
  return now - source.reading.time > source.maxAgeMs ? 'STALE' : 'USED';
}

/** The median of at least one value; the mean of the two middle values for an even count. */
export function median(values: readonly Money[]): Money {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a.comparedTo(b) ?? 0);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : sorted[mid - 1]!.plus(sorted[mid]!).div(2);
}

/**
 * The weighted median: the lowest price at which the cumulative weight reaches half the total;
 * when it reaches exactly half, the mean of that price and the next. With equal weights it is the
 * plain median.
 */
export function weightedMedian(points: readonly { price: Money; weight: Money }[]): Money {
  if (points.length === 0) throw new RangeError('weighted median of no values');
  if (points.some((p) => !p.weight.gt(0))) throw new RangeError('weights must be positive');
  const sorted = [...points].sort((a, b) => a.price.comparedTo(b.price) ?? 0);
  const total = sorted.reduce((w, p) => w.plus(p.weight), new Money(0));
  let cumulative = new Money(0);
  for (let i = 0; i < sorted.length; i++) {
    // Twice the cumulative weight against the total: no division, so no rounding.
    cumulative = cumulative.plus(sorted[i]!.weight);
    const twice = cumulative.times(2);
    if (twice.eq(total) && i + 1 < sorted.length) return sorted[i]!.price.plus(sorted[i + 1]!.price).div(2);
    if (twice.gte(total)) return sorted[i]!.price;
  }
  return sorted[sorted.length - 1]!.price;
}
