import type { HotStore } from '@perp/cache';
import { type EngineEvent, OI_FIELDS, OPEN_INTEREST_KEY, parseOutputId, placeField } from '@perp/contracts';
import { HighWaterMarks, Money, parseDecimal } from '@perp/domain';

// The layout and reader are contracts, shared with the gateway.
export {
  OI_FIELDS,
  OPEN_INTEREST_KEY,
  type OpenInterest,
  placeField,
  readOpenInterest,
} from '@perp/contracts';

type Trade = Extract<EngineEvent, { type: 'trade' }>;

/**
 * How one trade moves open interest, from the engine's open/close split of each side: the buyer's
 * opening part adds to the longs and its closing part (it closes a short) removes from the shorts;
 * the seller's the other way round. In a perpetual the two always move together.
 */
export function openInterestDelta(trade: Trade): { long: Money; short: Money } {
  let long = new Money(0);
  let short = new Money(0);
  for (const side of [trade.maker, trade.taker]) {
    const open = new Money(side.split.open);
    const close = new Money(side.split.close);
    if (side.side === 'BUY') {
      long = long.plus(open);
      short = short.minus(close);
    } else {
      short = short.plus(open);
      long = long.minus(close);
    }
  }
  return { long, short };
}

/**
 * The fields to write after applying the trade to the stored hash, or undefined when it (or a
 * later trade of its engine partition) was applied already, or its id names no place.
 */
export function nextOpenInterest(
  stored: Record<string, string>,
  trade: Trade,
): Record<string, string> | undefined {
  const place = parseOutputId(trade.id);
  if (!place) return undefined;
  // The hash keeps one high-water mark per engine partition, as `<offset>/<index>` text.
  const field = placeField(place.partition);
  const marks = new HighWaterMarks();
  if (stored[field] !== undefined) marks.markPlaceText(place.partition, stored[field]);
  if (!marks.isNew(place.partition, BigInt(place.offset), place.index)) return undefined;
  const delta = openInterestDelta(trade);
  const long = (parseDecimal(stored[OI_FIELDS.long] ?? '0') ?? new Money(0)).plus(delta.long);
  const short = (parseDecimal(stored[OI_FIELDS.short] ?? '0') ?? new Money(0)).plus(delta.short);
  return {
    [OI_FIELDS.long]: long.toFixed(),
    [OI_FIELDS.short]: short.toFixed(),
    [OI_FIELDS.time]: String(Math.max(trade.time, Number(stored[OI_FIELDS.time] ?? 0))),
    [field]: HighWaterMarks.placeText(place.offset, place.index),
  };
}

/** Applies one trade event to the hot store; false when it was a replay. */
export async function projectTrade(hot: HotStore, trade: Trade): Promise<boolean> {
  const key = OPEN_INTEREST_KEY(trade.symbol);
  const next = nextOpenInterest(await hot.hgetall(key), trade);
  if (!next) return false;
  await hot.hset(key, next);
  return true;
}
