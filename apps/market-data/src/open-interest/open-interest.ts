import { OI_FIELDS } from '@perp/contracts';
import { Money, type SignedPositions } from '@perp/domain';

// The layout and reader are contracts, shared with the gateway.
export { OI_FIELDS, OPEN_INTEREST_KEY, type OpenInterest, readOpenInterest } from '@perp/contracts';

/**
 * The `OPEN_INTEREST_KEY` hash of a symbol's positions: the longs' total size and the shorts'
 * (equal in a one-way perpetual; both are kept so a broken invariant shows), as of `time`.
 */
export function openInterestFields(positions: SignedPositions, time: number): Record<string, string> {
  let long = new Money(0);
  let short = new Money(0);
  for (const size of positions.values())
    if (size.isPositive()) long = long.plus(size);
    else short = short.minus(size);
  return {
    [OI_FIELDS.long]: long.toFixed(),
    [OI_FIELDS.short]: short.toFixed(),
    [OI_FIELDS.time]: String(time),
  };
}
