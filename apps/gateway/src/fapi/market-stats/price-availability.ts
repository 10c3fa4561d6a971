import { Inject, Injectable } from '@nestjs/common';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { FapiError, NativeError, readIndexSourceStatus } from '@perp/contracts';
import type { IndexUnavailableReason } from '@perp/domain';

const REASON_TEXT: Record<IndexUnavailableReason, string> = {
  NO_FRESH_SOURCE: 'no index source is fresh',
  SOURCES_DISAGREE: 'the index sources disagree',
  CIRCUIT_OPEN: 'the index sources are paused by their circuit breakers',
};

/**
 * Whether a market's price is unavailable, from the composite index feed's status in the hot store
 * (INDEX_SOURCE_KEY). A missing status (no composite runs: simulated feed or admin prices) means
 * available; so does AVAILABLE.
 */
@Injectable()
export class PriceAvailability {
  constructor(@Inject(HOT_STORE) private readonly hot: HotStore) {}

  /** Why the market's price is unavailable; undefined when it is available. */
  async unavailable(symbol: string): Promise<IndexUnavailableReason | undefined> {
    const status = await readIndexSourceStatus(this.hot, symbol);
    return status?.status === 'UNAVAILABLE' ? status.reason : undefined;
  }

  /** Native: 503 CIRCUIT_OPEN when the breakers hold the sources, else 503 PRICE_DATA_UNAVAILABLE. */
  async requireNative(symbol: string): Promise<void> {
    const reason = await this.unavailable(symbol);
    if (reason === undefined) return;
    throw new NativeError(
      reason === 'CIRCUIT_OPEN' ? 'CIRCUIT_OPEN' : 'PRICE_DATA_UNAVAILABLE',
      `price of ${symbol} unavailable: ${REASON_TEXT[reason]}`,
    );
  }

  /**
   * FAPI: the spec's table has no "service unavailable" row; -1001 DISCONNECTED (a service could
   * not serve, nothing was done, try again) is the documented code that fits.
   */
  async requireFapi(symbol: string): Promise<void> {
    const reason = await this.unavailable(symbol);
    if (reason === undefined) return;
    throw new FapiError(
      'DISCONNECTED',
      `Internal error; the price of ${symbol} is unavailable (${REASON_TEXT[reason]}), try again.`,
    );
  }
}
