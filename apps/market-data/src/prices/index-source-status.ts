import type { HotStore } from '@perp/cache';
import { INDEX_SOURCE_KEY, type IndexSourceStatus } from '@perp/contracts';

// The key, its schema and the reader live in libs/contracts (projections/index-source-status.ts):
// the gateway reads what this feed writes.

/** How long a status outlives its poll: ten poll intervals, at least a minute. */
export const indexSourceStatusTtlMs = (pollIntervalMs: number): number =>
  Math.max(60_000, 10 * pollIntervalMs);

/** Replaces the market's status; it expires when the feed stops writing it. */
export async function writeIndexSourceStatus(
  hot: HotStore,
  status: IndexSourceStatus,
  ttlMs: number,
): Promise<void> {
  await hot.set(INDEX_SOURCE_KEY(status.symbol), JSON.stringify(status), { ttlMs });
}
