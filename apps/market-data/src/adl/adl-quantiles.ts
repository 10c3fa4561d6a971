import {
  ADL_FIELDS,
  type AdlSide,
  type AdlSummary,
  adlUserField,
  adlUserValue,
  type EngineEvent,
} from '@perp/contracts';

/** The engine's ranking of a symbol's positions: the part of an `adl.quantiles` event kept. */
export type AdlList = Pick<
  Extract<EngineEvent, { type: 'adl.quantiles' }>,
  'seq' | 'time' | 'long' | 'short'
>;

/**
 * The whole `ADL_KEY` hash of a list: each ranked user's side and quantile, and the summary. It
 * replaces the stored hash in one step, so users no longer listed leave with it. Quantile 0 (no
 * position) is not stored: the user is then absent, which reads as 0.
 */
export function adlQuantilesHash(list: AdlList): Record<string, string> {
  const summary: AdlSummary = {
    seq: list.seq,
    time: list.time,
    long: [0, 0, 0, 0, 0],
    short: [0, 0, 0, 0, 0],
  };
  const hash: Record<string, string> = {};
  const add = (side: AdlSide, counts: number[], entries: AdlList['long']) => {
    for (const [user, quantile] of entries) {
      if (quantile < 1) continue;
      hash[adlUserField(user)] = adlUserValue(side, quantile);
      counts[quantile - 1]!++;
    }
  };
  add('LONG', summary.long, list.long);
  add('SHORT', summary.short, list.short);
  hash[ADL_FIELDS.summary] = JSON.stringify(summary);
  return hash;
}
