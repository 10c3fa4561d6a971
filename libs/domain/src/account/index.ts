// Explicit exports: generic names (Side, OrderType, the rounding helpers) stay inside the module
// so they cannot collide with other domain modules re-exported beside this one.
export { averagePrice, averagePriceOfFill, SETTLEMENT_DECIMALS } from './rounding';
export { referencePriceSource, type AccountOrder, type ReferencePriceSource } from './order';
export {
  LEVERAGE_REJECT_REASONS,
  MARGIN_REJECT_REASONS,
  PRE_TRADE_REJECT_REASONS,
  type AccountRejection,
  type LeverageRejectReason,
  type MarginRejectReason,
  type PreTradeRejectReason,
} from './reasons';
export {
  ORDER_MARGIN_BUFFER,
  effectiveLeverage,
  initialMargin,
  isValidLeverage,
  maintenanceBracketFor,
  maintenanceMargin,
  marginRatio,
  maxNotionalForLeverage,
  orderMargin,
} from './margin';
export { MARGIN_MODES, isIsolated, marginTypeOf, parseMarginMode, type MarginMode } from './margin-mode';
export { commission, feeRates, isValidVipTier, type FeeRates } from './fees';
export {
  applyPositionTrade,
  entryPrice,
  positionClosingQty,
  positionNotional,
  signedCost,
  unrealizedPnl,
  type AccountPosition,
  type PositionTrade,
  type PositionTradeEffect,
} from './position';
export type { IncomeRecord, IncomeType } from './income';
export {
  CLEARING_ACCOUNT,
  FEE_ACCOUNT,
  INSURANCE_FUND,
  Ledger,
  walletOf,
  type LedgerAccount,
  type LedgerTransfer,
  type LedgerTransferKind,
  type SystemAccount,
  type WalletAccount,
} from './ledger';
export {
  Account,
  type AccountBalances,
  type CollateralResult,
  type LeverageResult,
  type MarginModeResult,
  type MarketLookup,
  type MarkPrices,
  type PositionView,
} from './account';
export {
  checkOrderShape,
  checkPreTrade,
  quantityFromQuote,
  type OrderShape,
  type PreTradeAccepted,
  type PreTradeRequest,
  type PreTradeResult,
} from './pre-trade';
export {
  releaseOrderMargin,
  settleFill,
  settleFunding,
  type FundingSettlement,
  type SettlementFill,
  type SettlementResult,
} from './settlement';
export { AccountBook, type AccountBookOptions } from './account-book';
export {
  accountMetrics,
  breakEvenPrice,
  liquidationPrice,
  symbolMetrics,
  type AccountMetrics,
  type SymbolMetrics,
} from './position-metrics';
export {
  ACCOUNT_STATE_VERSION,
  accountStateSchema,
  orderToState,
  parseAccountBookState,
  parseAccountState,
  parseLedgerState,
  type AccountBookState,
  type AccountOrderState,
  type AccountPositionState,
  type AccountState,
  type LedgerState,
  type MoneyString,
} from './account-state';
export {
  BookTotals,
  solvency,
  type PartitionTotals,
  type SolvencyReport,
  type SymbolTotals,
} from './solvency';
