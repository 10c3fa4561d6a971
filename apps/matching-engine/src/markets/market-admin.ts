import { Injectable } from '@nestjs/common';
import { Bus } from '@perp/bus';
import { type EngineCommand, type OutcomeReason, TOPICS } from '@perp/contracts';
import { type Market, type MarketStatus, MarketRegistry, parseMarket } from '@perp/domain';

type MarketCommand = Extract<EngineCommand, { type: 'market.status' | 'market.add' }>;

export class MarketAdminError extends Error {
  constructor(
    readonly reason: Extract<
      OutcomeReason,
      'MARKET_NOT_FOUND' | 'MARKET_EXISTS' | 'MARKET_DELISTED' | 'INVALID_MARKET_DEFINITION'
    >,
    message: string,
  ) {
    super(message);
  }
}

const ACTION: Record<MarketStatus, 'pause' | 'resume' | 'delist'> = {
  HALT: 'pause',
  TRADING: 'resume',
  CLOSE: 'delist',
};

/** The market a `market.add` lists; undefined for a definition the engine refuses (so was the add). */
export function listingOf(cmd: Extract<MarketCommand, { type: 'market.add' }>): Market | undefined {
  try {
    return parseMarket(cmd.market);
  } catch {
    return undefined;
  }
}

/**
 * Operator changes to markets, applied by the engine in the symbol's command order: the result is
 * published whole on the markets topic, which every process projects. CLOSE (delisted) is final.
 */
@Injectable()
export class MarketAdmin {
  constructor(
    private readonly bus: Bus,
    private readonly markets: MarketRegistry,
  ) {}

  /**
   * `asOfLog`: the market's status as the engine partition's log has it before `cmd` (its book's;
   * undefined where the log has not listed it), which a replay decides on: the live list may
   * already hold a later delisting, or the listing a replayed `market.add` made.
   */
  async apply(cmd: MarketCommand, eventId: string, asOfLog?: MarketStatus): Promise<Market> {
    const [market, action] = this.decide(cmd, asOfLog);
    await this.bus.publish(TOPICS.markets.name, market.symbol, {
      id: eventId,
      v: 1,
      time: cmd.time,
      type: 'market.state',
      symbol: market.symbol,
      market: market as unknown as Record<string, unknown>,
      actor: cmd.actor,
      action,
    });
    this.markets.upsert(market);
    return market;
  }

  private decide(
    cmd: MarketCommand,
    asOfLog?: MarketStatus,
  ): [Market, 'add' | 'pause' | 'resume' | 'delist'] {
    if (cmd.type === 'market.add') {
      if (asOfLog !== undefined)
        throw new MarketAdminError('MARKET_EXISTS', `market ${cmd.symbol} already exists`);
      try {
        return [parseMarket(cmd.market), 'add'];
      } catch (e) {
        throw new MarketAdminError('INVALID_MARKET_DEFINITION', (e as Error).message);
      }
    }
    const current = this.markets.find(cmd.symbol);
    if (!current) throw new MarketAdminError('MARKET_NOT_FOUND', `market ${cmd.symbol} not found`);
    if ((asOfLog ?? current.status) === 'CLOSE' && cmd.status !== 'CLOSE')
      throw new MarketAdminError('MARKET_DELISTED', `market ${cmd.symbol} is delisted`);
    return [{ ...current, status: cmd.status }, ACTION[cmd.status]];
  }
}
