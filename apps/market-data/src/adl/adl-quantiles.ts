import type { HotStore } from '@perp/cache';
import {
  ADL_FIELDS,
  ADL_KEY,
  type AdlSide,
  type AdlSummary,
  adlUserField,
  adlUserValue,
  type EngineEvent,
  parseAdlSummary,
} from '@perp/contracts';

type AdlQuantiles = Extract<EngineEvent, { type: 'adl.quantiles' }>;

const DELETE_SLICE = 1000;

export interface AdlWrite {
  set: Record<string, string>;
  /** Users of the stored list that the new one no longer holds. */
  del: string[];
}

/**
 * The hash changes that replace the stored list with the event's (see ADL_KEY), or undefined when
 * the stored list is as new or newer (a replay, a redelivery). Quantile 0 (no position) is not
 * stored: the user is then absent, which reads as 0.
 */
export function nextAdlQuantiles(stored: Record<string, string>, e: AdlQuantiles): AdlWrite | undefined {
  const current = parseAdlSummary(stored[ADL_FIELDS.summary]);
  if (e.seq <= current.seq) return undefined;
  const summary: AdlSummary = { seq: e.seq, time: e.time, long: [0, 0, 0, 0, 0], short: [0, 0, 0, 0, 0] };
  const set: Record<string, string> = {};
  const add = (side: AdlSide, counts: number[], list: AdlQuantiles['long']) => {
    for (const [user, quantile] of list) {
      if (quantile < 1) continue;
      set[adlUserField(user)] = adlUserValue(side, quantile);
      counts[quantile - 1]!++;
    }
  };
  add('LONG', summary.long, e.long);
  add('SHORT', summary.short, e.short);
  set[ADL_FIELDS.summary] = JSON.stringify(summary);
  const del = Object.keys(stored).filter((f) => f.startsWith(ADL_FIELDS.user) && !(f in set));
  return { set, del };
}

/** Applies one event to the hot store; false when it was not newer than the stored list. */
export async function projectAdlQuantiles(hot: HotStore, e: AdlQuantiles): Promise<boolean> {
  const key = ADL_KEY(e.symbol);
  const next = nextAdlQuantiles(await hot.hgetall(key), e);
  if (!next) return false;
  await hot.hset(key, next.set);
  // In slices: a spread of a very long list would overflow the call's argument limit.
  for (let i = 0; i < next.del.length; i += DELETE_SLICE)
    await hot.hdel(key, ...next.del.slice(i, i + DELETE_SLICE));
  return true;
}
