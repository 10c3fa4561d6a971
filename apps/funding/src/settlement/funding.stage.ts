import { Injectable } from '@nestjs/common';
import { Bus, type BusMessage, RARE_TOPIC_FETCH_WAIT_MS } from '@perp/bus';
import { type FundingEvent, TOPICS } from '@perp/contracts';
import {
  FundingClock,
  type FundingClockState,
  type FundingSettlementDue,
  MARK_TRACKER_DEFAULTS,
  MarketRegistry,
  Money,
} from '@perp/domain';
import { SnapshotStage, validMessages } from '@perp/infrastructure';
import { MarketDataRepository, ProcessedOffsetRepository, ShardSnapshotRepository } from '@perp/persistence';

export const FUNDING_STAGE = 'funding';

/** The event of a round: its id is the symbol and funding time, so each round has exactly one. */
export function fundingEventOf(r: FundingSettlementDue): FundingEvent {
  return {
    id: r.id,
    v: 1,
    time: r.fundingTime,
    type: 'funding.settle',
    symbol: r.symbol,
    fundingRate: r.fundingRate.toFixed(),
    markPrice: r.markPrice.toFixed(),
    fundingTime: r.fundingTime,
  };
}

/**
 * The funding service: reads the marks of the prices log, keeps each market's premium samples per
 * interval (libs/domain FundingClock), and when a mark's time reaches a funding time records the
 * settled rate (funding_rates, which fundingRate and premiumIndex read) and publishes one
 * `funding.settle` per market and funding time on the funding log, which the risk router copies
 * to every risk partition. Clocks per partition are snapshotted with the consumer's mark each turn.
 */
@Injectable()
export class FundingStage extends SnapshotStage<Map<string, FundingClock>> {
  constructor(
    bus: Bus,
    offsets: ProcessedOffsetRepository,
    snapshots: ShardSnapshotRepository,
    private readonly registry: MarketRegistry,
    private readonly rates: MarketDataRepository,
  ) {
    // Marks come about once a second per symbol and a round is due on the hour: no hurry per fetch.
    super(bus, offsets, snapshots, FUNDING_STAGE, TOPICS.prices.name, RARE_TOPIC_FETCH_WAIT_MS);
  }

  protected emptyState(): Map<string, FundingClock> {
    return new Map();
  }

  protected encode(state: Map<string, FundingClock>): FundingClockState[] {
    return [...state.values()].map((c) => c.toJSON());
  }

  protected decode(json: unknown): Map<string, FundingClock> {
    const clocks = (json as unknown[]).map((s) => FundingClock.fromJSON(s));
    return new Map(clocks.map((c) => [c.symbol, c]));
  }

  protected async applyTurn(
    state: Map<string, FundingClock>,
    messages: readonly BusMessage[],
  ): Promise<void> {
    const due: FundingSettlementDue[] = [];
    for (const { value: e } of validMessages('prices', messages, this.logger)) {
      if (e.type !== 'price.mark') continue;
      const market = this.registry.find(e.symbol);
      if (!market) continue;
      let clock = state.get(e.symbol);
      if (!clock)
        state.set(
          e.symbol,
          (clock = FundingClock.start(e.symbol, e.time, market, MARK_TRACKER_DEFAULTS.cadenceMs)),
        );
      due.push(...clock.onMark(market, e.time, new Money(e.markPrice), new Money(e.premiumIndex)));
    }
    if (!due.length) return;
    await this.rates.insertFundingRates(
      due.map((r) => ({
        symbol: r.symbol,
        fundingTime: r.fundingTime,
        fundingRate: r.fundingRate.toFixed(),
        markPrice: r.markPrice.toFixed(),
      })),
    );
    for (const r of due) await this.bus.publish(TOPICS.funding.name, r.symbol, fundingEventOf(r));
  }
}
