import { INDEX_SOURCE_STATES, INDEX_UNAVAILABLE_REASONS } from '@perp/domain';
import { z } from 'zod';
import type { StringReader } from './market-projections';

/**
 * Hot-store key of a market's composite index state (PRICE_SOURCE=composite), a JSON string the
 * market-data feed replaces after every poll of the market:
 * - status AVAILABLE (with the published `price`) or UNAVAILABLE (with a `reason`: NO_FRESH_SOURCE,
 *   SOURCES_DISAGREE or CIRCUIT_OPEN; nothing is published then);
 * - time of the poll (ms) and the composite's description (the `source` of its price events);
 * - per source: its state in the composite (USED, STALE, DEVIATION, INVALID, NO_DATA,
 *   CIRCUIT_OPEN), last reading (price, time), circuit (CLOSED, OPEN, HALF_OPEN), consecutive
 *   failures and the last error.
 * The key expires when the feed stops writing it, so a missing key means no composite runs for
 * the market (simulated feed or admin prices): its price counts as available. The gateway answers
 * PRICE_DATA_UNAVAILABLE / CIRCUIT_OPEN from it.
 */
export const INDEX_SOURCE_KEY = (symbol: string): string => `index-source:${symbol}`;

const sourceStatus = z.object({
  name: z.string(),
  kind: z.enum(['chainlink', 'admin', 'simulated']),
  state: z.enum(INDEX_SOURCE_STATES),
  price: z.string().optional(),
  time: z.number().optional(),
  circuit: z.enum(['CLOSED', 'OPEN', 'HALF_OPEN']),
  failures: z.number().int().nonnegative(),
  lastError: z.string().optional(),
});

const common = {
  symbol: z.string(),
  time: z.number().int(),
  description: z.string(),
  sources: z.array(sourceStatus),
};

export const indexSourceStatus = z.discriminatedUnion('status', [
  z.object({ status: z.literal('AVAILABLE'), price: z.string(), ...common }),
  z.object({ status: z.literal('UNAVAILABLE'), reason: z.enum(INDEX_UNAVAILABLE_REASONS), ...common }),
]);
export type IndexSourceStatus = z.infer<typeof indexSourceStatus>;
export type IndexSourceStatusEntry = z.infer<typeof sourceStatus>;

/** The market's composite index state; undefined when no composite feed writes it (or it is unreadable). */
export async function readIndexSourceStatus(
  hot: StringReader,
  symbol: string,
): Promise<IndexSourceStatus | undefined> {
  const raw = await hot.get(INDEX_SOURCE_KEY(symbol));
  if (raw === undefined) return undefined;
  try {
    const parsed = indexSourceStatus.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
