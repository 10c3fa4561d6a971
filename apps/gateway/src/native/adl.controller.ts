import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { type AuthUser, CurrentUser, JwtAuthGuard } from '@perp/auth';
import { HOT_STORE, type HotStore } from '@perp/cache';
import { readAdlSummary, userIdForAddress } from '@perp/contracts';
import { MarketRegistry } from '@perp/domain';
import { ForceOrderRepository } from '@perp/persistence';
import { z } from 'zod';
import { nativeMarket } from '../markets/market-lookup';
import { ApiDoc } from '../openapi/api-doc';
import { AdlConfig, AdlEvent, AdlHistory, AdlRankings } from '../openapi/liquidation-responses';
import { type NativeFields, nativeIssue } from '../openapi/native-fields';
import { NativeQuery } from '../openapi/route-inputs';
import { adlConfigView, adlEventView, adlHistoryItemView, adlRankingsView } from './adl-views';

const symbolPath = { symbol: z.string().meta({ description: 'Market, any alias' }) };

/** A positive integer query parameter up to `max` (above: `max`), default `fallback`; else INVALID_REQUEST. */
export const positiveInt = (name: string, fallback: number, max: number, description: string) => {
  const bad = nativeIssue('INVALID_REQUEST', `${name} must be a positive integer`);
  return z
    .string({ error: bad })
    .regex(/^\d{1,9}$/, bad)
    .transform(Number)
    .refine((n) => n >= 1, bad)
    .transform((n) => Math.min(n, max))
    .optional()
    .transform((n) => n ?? fallback)
    .meta({ description: `${description} (default ${fallback}, at most ${max})` });
};

const EVENTS_QUERY = { limit: positiveInt('limit', 50, 500, 'Events') };
export const PAGE_QUERY = {
  page: positiveInt('page', 1, 1_000_000, 'Page, from 1'),
  limit: positiveInt('limit', 50, 500, 'Rows per page'),
};

/** Public ADL reads of a market: rankings (hot store), recent closes (Postgres), how it works. */
@Controller('api/v1/adl')
export class NativeAdlController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly forceOrders: ForceOrderRepository,
    @Inject(HOT_STORE) private readonly hot: HotStore,
  ) {}

  @Get(':symbol/rankings')
  @ApiDoc({
    tag: 'markets',
    summary: 'ADL quantile distribution per side',
    description:
      'How many positions each quantile holds per side, from the engine’s latest ranking. No addresses or sizes: a holder sees their own quantile with GET /fapi/v1/adlQuantile.',
    path: symbolPath,
    response: AdlRankings,
    errors: ['INVALID_MARKET'],
  })
  async rankings(@Param('symbol') symbol: string) {
    const market = nativeMarket(this.markets, symbol);
    return adlRankingsView(market.symbol, await readAdlSummary(this.hot, market.symbol));
  }

  @Get(':symbol/events')
  @ApiDoc({
    tag: 'markets',
    summary: 'Recent ADL closes of a market, newest first',
    description: 'Anonymous: the side, price, quantity and time of each close, not whose position it was.',
    path: symbolPath,
    response: z.array(AdlEvent),
    errors: ['INVALID_MARKET', 'INVALID_REQUEST'],
  })
  async events(
    @Param('symbol') symbol: string,
    @NativeQuery(EVENTS_QUERY) q: NativeFields<typeof EVENTS_QUERY>,
  ) {
    const market = nativeMarket(this.markets, symbol);
    const rows = await this.forceOrders.listBySymbol(market.symbol, 'ADL', { limit: q.get('limit') });
    return rows.map(adlEventView);
  }

  @Get(':symbol/config')
  @ApiDoc({
    tag: 'markets',
    summary: 'How liquidation and ADL work on a market',
    description:
      'The ranking rule, the quantile buckets, the clearance fee rate and the maintenance brackets.',
    path: symbolPath,
    response: AdlConfig,
    errors: ['INVALID_MARKET'],
  })
  config(@Param('symbol') symbol: string) {
    return adlConfigView(nativeMarket(this.markets, symbol));
  }
}

/** The caller's ADL closes (JWT), a page at a time. */
@Controller('api/v1/adl')
@UseGuards(JwtAuthGuard)
export class NativeAdlHistoryController {
  constructor(private readonly forceOrders: ForceOrderRepository) {}

  @Get('history')
  @ApiDoc({
    tag: 'account',
    summary: 'Your ADL closes, newest first, paged',
    response: AdlHistory,
    errors: ['INVALID_TOKEN', 'INVALID_REQUEST'],
  })
  async history(@CurrentUser() user: AuthUser, @NativeQuery(PAGE_QUERY) q: NativeFields<typeof PAGE_QUERY>) {
    const page = q.get('page');
    const limit = q.get('limit');
    const { rows, total } = await this.forceOrders.pageByUser(userIdForAddress(user.address), 'ADL', {
      page,
      limit,
    });
    return { items: rows.map(adlHistoryItemView), page, limit, total };
  }
}
