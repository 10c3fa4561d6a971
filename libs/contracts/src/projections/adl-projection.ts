/**
 * ADL quantiles in the hot store: layout and readers. The market-data app's public-market
 * projector writes them from the engine's `adl.quantiles` events (and keeps them in Postgres); the gateway reads them (GET /fapi/v1/adlQuantile,
 * the native ADL rankings).
 *
 * One hash per symbol, `adl:{symbol}`:
 * - `summary`: JSON `AdlSummary`: the engine's per-symbol sequence and time of the list it holds
 *   (an older or replayed event is dropped) and how many positions each quantile holds per side;
 * - `u:{address}`: the user's side and quantile, `L3` or `S5` (one field per user: one-way mode
 *   has one position per symbol, so a flip overwrites it in place).
 * A list replaces the whole hash in one step (`hupdate` with `replace`), so users no longer listed
 * leave with it; the gateway still checks the position (the list trails the book).
 */
export const ADL_KEY = (symbol: string) => `adl:${symbol}`;
export const ADL_FIELDS = { summary: 'summary', user: 'u:' } as const;

export type AdlSide = 'LONG' | 'SHORT';
/** Quantiles 1 (last in line) to 5 (first in line); 0 = no position. */
export const ADL_QUANTILES = [1, 2, 3, 4, 5] as const;

const SIDE_CODE: Record<AdlSide, string> = { LONG: 'L', SHORT: 'S' };

export const adlUserField = (user: string) => `${ADL_FIELDS.user}${user}`;

/** A user's stored value: side and quantile (`L3`). */
export function adlUserValue(side: AdlSide, quantile: number): string {
  return `${SIDE_CODE[side]}${quantile}`;
}

export interface AdlRank {
  side: AdlSide;
  quantile: number;
}

export function parseAdlUserValue(v: string | undefined): AdlRank | undefined {
  const m = v === undefined ? null : /^([LS])([1-5])$/.exec(v);
  if (!m) return undefined;
  return { side: m[1] === 'L' ? 'LONG' : 'SHORT', quantile: Number(m[2]) };
}

interface FieldReader {
  hget(key: string, field: string): Promise<string | undefined>;
  hgetall(key: string): Promise<Record<string, string>>;
}

/** The user's ADL rank on the symbol, or undefined when the last list did not hold them. */
export async function readAdlRank(
  hot: Pick<FieldReader, 'hget'>,
  symbol: string,
  user: string,
): Promise<AdlRank | undefined> {
  return parseAdlUserValue(await hot.hget(ADL_KEY(symbol), adlUserField(user)));
}

/** The `summary` field: positions per quantile 1..5 (index 0 = quantile 1) and the list's place. */
export interface AdlSummary {
  /** The engine's per-symbol sequence of the list; -1 when none was projected. */
  seq: number;
  time: number;
  long: number[];
  short: number[];
}

export const EMPTY_ADL_SUMMARY: AdlSummary = {
  seq: -1,
  time: 0,
  long: [0, 0, 0, 0, 0],
  short: [0, 0, 0, 0, 0],
};

export function parseAdlSummary(v: string | undefined): AdlSummary {
  if (v === undefined) return EMPTY_ADL_SUMMARY;
  const s = JSON.parse(v) as AdlSummary;
  return { seq: s.seq, time: s.time, long: [...s.long], short: [...s.short] };
}

/** How many positions each quantile holds per side (no user addresses): the native rankings. */
export async function readAdlSummary(hot: Pick<FieldReader, 'hget'>, symbol: string): Promise<AdlSummary> {
  return parseAdlSummary(await hot.hget(ADL_KEY(symbol), ADL_FIELDS.summary));
}
