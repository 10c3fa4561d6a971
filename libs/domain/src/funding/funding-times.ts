import type { Market } from '../markets/market';

const MINUTE_MS = 60_000;

/** The market's funding interval in ms: fundingIntervalMinutes when set, else fundingIntervalHours. */
export function fundingIntervalMs(
  market: Pick<Market, 'fundingIntervalHours' | 'fundingIntervalMinutes'>,
): number {
  return (market.fundingIntervalMinutes ?? market.fundingIntervalHours * 60) * MINUTE_MS;
}

function checkInterval(intervalMs: number): void {
  if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0)
    throw new RangeError(`funding interval must be a positive integer of ms: ${intervalMs}`);
}

/**
 * The latest funding time at or before `time`: funding times are the multiples of the interval
 * since the epoch (00:00 UTC), so an 8 h market funds at 00:00, 08:00 and 16:00 UTC. It is also
 * the start of the interval holding `time`.
 */
export function fundingTimeAtOrBefore(time: number, intervalMs: number): number {
  checkInterval(intervalMs);
  return Math.floor(time / intervalMs) * intervalMs;
}

/** The first funding time strictly after `time` (at a funding time, the one after it). */
export function nextFundingTime(time: number, intervalMs: number): number {
  return fundingTimeAtOrBefore(time, intervalMs) + intervalMs;
}

/**
 * Every funding time in (after, upTo], oldest first: the rounds a service that last settled at
 * `after` owes at `upTo` (one after a normal tick, several after downtime).
 */
export function fundingTimesBetween(after: number, upTo: number, intervalMs: number): number[] {
  const out: number[] = [];
  for (let t = nextFundingTime(after, intervalMs); t <= upTo; t += intervalMs) out.push(t);
  return out;
}
