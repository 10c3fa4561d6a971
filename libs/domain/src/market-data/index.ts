// Explicit exports: the internal helpers (ratios.ts) stay inside the module.
export {
  KLINE_INTERVALS,
  STATS_PERIODS,
  bucketClose,
  bucketOpen,
  nextBucketOpen,
  parseKlineInterval,
  parseStatsPeriod,
  type KlineInterval,
  type StatsPeriod,
} from './kline-intervals';
export {
  CandleSeries,
  applySample,
  applyTrade,
  flatCandle,
  klineRow,
  type Candle,
  type CandleTrade,
  type CandleUpdate,
  type KlineFormat,
  type KlineRow,
  type TradeSide,
} from './candles';
export {
  aggTradeRow,
  nextAggTrade,
  type AggFill,
  type AggTrade,
  type AggTradeRow,
  type OpenAggTrade,
} from './agg-trades';
export { takerVolume, takerVolumeRow, type TakerVolumePoint, type TakerVolumeRow } from './taker-volume';
export {
  SymbolPositions,
  accountRatioRow,
  globalAccountRatio,
  positionRatioRow,
  topAccounts,
  topTraderAccountRatio,
  topTraderPositionRatio,
  type AccountRatio,
  type AccountRatioRow,
  type PositionRatio,
  type PositionRatioRow,
  type SignedPositions,
  type TradeParty,
} from './long-short-ratio';
export {
  applyOpenInterest,
  openInterestRow,
  type OpenInterestPoint,
  type OpenInterestRow,
} from './open-interest-history';
export { DepthBook, type DepthDelta, type DepthLevel, type DepthSnapshot } from './depth-book';
export { fillForward, periodBuckets, type FilledBucket, type PeriodWindow } from './fill-forward';
