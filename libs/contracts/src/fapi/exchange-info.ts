import { type Chain, type Market, Money, orderLimits } from '@perp/domain';
import { ORDER_TYPES } from './new-order';

/** What exchangeInfo lists: the /fapi/v1/order types plus the algo-only trailing stop. */
export const FAPI_ORDER_TYPES = [...ORDER_TYPES, 'TRAILING_STOP_MARKET'];
export const FAPI_TIME_IN_FORCE = ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'];

/** One `rateLimits` entry of exchangeInfo (Binance's shape). */
export interface ExchangeInfoRateLimit {
  rateLimitType: 'REQUEST_WEIGHT' | 'ORDERS';
  interval: 'SECOND' | 'MINUTE';
  intervalNum: number;
  limit: number;
}

/**
 * Binance USD-M's request-weight and order-count ceilings, which are the gateway's defaults
 * (RATE_LIMIT_* in the README). exchangeInfo publishes the configured ones (apps/gateway/src/rate-limits).
 */
export const RATE_LIMITS: readonly ExchangeInfoRateLimit[] = [
  { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 2400 },
  { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
  { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300 },
];

function maxPrice(m: Market): string {
  return orderLimits(m).maxPrice.toFixed(m.pricePrecision);
}

function maxQty(m: Market): string {
  return orderLimits(m).maxQty.toFixed(m.quantityPrecision);
}

/** One symbol entry of /fapi/v1/exchangeInfo: Binance's shape plus the spec's own fields. */
export function toExchangeInfoSymbol(m: Market) {
  const firstBracket = m.maintenanceBrackets[0];
  return {
    symbol: m.symbol,
    pair: m.symbol,
    contractType: 'PERPETUAL',
    deliveryDate: 4133404800000,
    onboardDate: m.onboardDate,
    status: m.status,
    maintMarginPercent: new Money(firstBracket.maintMarginRatio).times(100).toFixed(4),
    requiredMarginPercent: new Money(100).div(m.maxLeverage).toFixed(4),
    baseAsset: m.baseAsset,
    quoteAsset: m.quoteAsset,
    marginAsset: m.quoteAsset,
    pricePrecision: m.pricePrecision,
    quantityPrecision: m.quantityPrecision,
    baseAssetPrecision: 8,
    quotePrecision: 8,
    underlyingType: m.underlyingType,
    underlyingSubType: [],
    settlePlan: 0,
    triggerProtect: new Money(m.triggerProtect).toFixed(4),
    liquidationFee: '0.012500',
    marketTakeBound: '0.05',
    maxMoveOrderLimit: 10000,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: m.tickSize, maxPrice: maxPrice(m), tickSize: m.tickSize },
      { filterType: 'LOT_SIZE', minQty: m.lotSize, maxQty: maxQty(m), stepSize: m.lotSize },
      { filterType: 'MARKET_LOT_SIZE', minQty: m.lotSize, maxQty: maxQty(m), stepSize: m.lotSize },
      { filterType: 'MAX_NUM_ORDERS', limit: m.maxOpenOrders },
      { filterType: 'MAX_NUM_ALGO_ORDERS', limit: m.maxAlgoOrders },
      { filterType: 'MIN_NOTIONAL', notional: m.minOrderSizeUsd },
      {
        filterType: 'PERCENT_PRICE',
        multiplierUp: '1.0500',
        multiplierDown: '0.9500',
        multiplierDecimal: '4',
      },
    ],
    orderTypes: FAPI_ORDER_TYPES,
    timeInForce: FAPI_TIME_IN_FORCE,
    lot_size: m.lotSize,
    min_order_size_usd: m.minOrderSizeUsd,
    max_order_size_usd: m.maxOrderSizeUsd,
  };
}

/** `rateLimits`: the ceilings in force (the deployment's RATE_LIMIT_* configuration). */
export function toExchangeInfo(
  chain: Chain,
  markets: readonly Market[],
  serverTime: number,
  rateLimits: readonly ExchangeInfoRateLimit[],
) {
  return {
    timezone: 'UTC',
    serverTime,
    futuresType: 'U_MARGINED',
    rateLimits,
    exchangeFilters: [],
    assets: [{ asset: chain.settlementAsset, marginAvailable: true, autoAssetExchange: '0' }],
    symbols: markets.map(toExchangeInfoSymbol),
  };
}
