import { Controller, Get, Header } from '@nestjs/common';
import type { FapiErrorName, FapiFields } from '@perp/contracts';
import { type Market, MarketRegistry } from '@perp/domain';
import type { CandleSeriesName } from '@perp/persistence';
import { z } from 'zod';
import { fapiMarket } from '../../markets/market-lookup';
import { ApiDoc, type ApiDocSpec } from '../../openapi/api-doc';
import { KlineRow } from '../../openapi/fapi-responses';
import { FapiInput } from '../../openapi/route-inputs';
import { KlineReader } from './kline-reader';
import { CONTINUOUS_KLINES_PARAMS, KLINES_PARAMS, PAIR_KLINES_PARAMS } from './market-params';

const ERRORS: FapiErrorName[] = [
  'MANDATORY_PARAM_EMPTY_OR_MALFORMED',
  'ILLEGAL_CHARS',
  'INVALID_SYMBOL',
  'INVALID_INTERVAL',
];
const doc = (summary: string, extra: Partial<ApiDocSpec> = {}): ApiDocSpec => ({
  tag: 'market',
  summary,
  description:
    'Oldest first; every interval is a true bucket. From startTime the first `limit`, else the latest.',
  response: z.array(KlineRow),
  errors: ERRORS,
  ...extra,
});

type Klines = FapiFields<typeof KLINES_PARAMS>;
/** The routes answer the reader's cached JSON text, with the type Fastify gives an object. */
const JSON_BODY = 'application/json; charset=utf-8';
type PairKlines = FapiFields<typeof PAIR_KLINES_PARAMS>;

/**
 * Klines of the last price and of the mark, index and premium-index prices, every interval a true
 * bucket. Weight by `limit` (PUBLIC_WEIGHTS); limit default 500, above 1500 clamped.
 */
@Controller('fapi/v1')
export class FapiKlinesController {
  constructor(
    private readonly markets: MarketRegistry,
    private readonly klines: KlineReader,
  ) {}

  @Get('klines')
  @Header('content-type', JSON_BODY)
  @ApiDoc(doc('Candles of the last price (with taker-buy volumes)'))
  lastPrice(@FapiInput(KLINES_PARAMS) q: Klines) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    return this.read(m, 'last', q, q);
  }

  /** `lastPrice`'s body with no read while unchanged (KlineReader.jsonNow); else undefined. */
  lastPriceNow(q: Klines): Buffer | undefined {
    return this.klines.jsonNow(q, Date.now());
  }

  /** By pair; every market is a perpetual, so `contractType` must be PERPETUAL (-1130 otherwise). */
  @Get('continuousKlines')
  @Header('content-type', JSON_BODY)
  @ApiDoc(
    doc('Candles of a pair’s perpetual contract', { errors: [...ERRORS, 'INVALID_DATA_FOR_PARAMETER'] }),
  )
  continuous(@FapiInput(CONTINUOUS_KLINES_PARAMS) q: FapiFields<typeof CONTINUOUS_KLINES_PARAMS>) {
    const m = fapiMarket(this.markets, q.get('pair'));
    q.get('contractType');
    return this.read(m, 'last', q);
  }

  @Get('indexPriceKlines')
  @Header('content-type', JSON_BODY)
  @ApiDoc(doc('Candles of the index price (volumes "0")'))
  indexPrice(@FapiInput(PAIR_KLINES_PARAMS) q: PairKlines) {
    const m = fapiMarket(this.markets, q.get('pair'));
    return this.read(m, 'index', q);
  }

  @Get('markPriceKlines')
  @Header('content-type', JSON_BODY)
  @ApiDoc(doc('Candles of the mark price (volumes "0")'))
  markPrice(@FapiInput(KLINES_PARAMS) q: Klines) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    return this.read(m, 'mark', q);
  }

  @Get('premiumIndexKlines')
  @Header('content-type', JSON_BODY)
  @ApiDoc(doc('Candles of the premium index (volumes "0")'))
  premiumIndex(@FapiInput(KLINES_PARAMS) q: Klines) {
    const m = fapiMarket(this.markets, q.get('symbol'));
    return this.read(m, 'premium', q);
  }

  private read(m: Market, series: CandleSeriesName, q: Klines | PairKlines, owner?: object) {
    const f = q as Klines;
    const interval = f.get('interval');
    const query = { startTime: f.get('startTime'), endTime: f.get('endTime'), limit: f.get('limit') };
    return this.klines.json(m, series, interval, query, Date.now(), owner);
  }
}
