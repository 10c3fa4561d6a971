import { AdminAuditEntity } from './admin-audit.entity';
import { AlgoOrderEntity } from './algo-order.entity';
import { ApiKeyEntity } from './api-key.entity';
import { IncomeEntity } from './income.entity';
import { ForceOrderEntity, InsuranceMovementEntity } from './liquidation.entity';
import { ListenKeyEntity } from './listen-key.entity';
import { MarketAdlQuantilesEntity, MarketBookEntity, MarketBookLevelEntity } from './market-book.entity';
import { MarketCandleEntity, MarketTickerMinuteEntity } from './market-candle.entity';
import { MarketPriceEntity } from './market-price.entity';
import { FundingRateEntity, MarketPositionEntity, MarketStatisticEntity } from './market-statistic.entity';
import { MarketAggTradeEntity, MarketTradeEntity } from './market-trade.entity';
import { OrderEntity } from './order.entity';
import { ProcessedOffsetEntity } from './processed-offset.entity';
import { ShardSnapshotEntity } from './shard-snapshot.entity';
import { TradeEntity } from './trade.entity';
import { UserEntity } from './user.entity';

export * from './admin-audit.entity';
export * from './algo-order.entity';
export * from './api-key.entity';
export * from './income.entity';
export * from './liquidation.entity';
export * from './listen-key.entity';
export * from './market-book.entity';
export * from './market-candle.entity';
export * from './market-price.entity';
export * from './market-statistic.entity';
export * from './market-trade.entity';
export * from './order.entity';
export * from './processed-offset.entity';
export * from './shard-snapshot.entity';
export * from './trade.entity';
export * from './user.entity';

export const ENTITIES = [
  UserEntity,
  ApiKeyEntity,
  ShardSnapshotEntity,
  ProcessedOffsetEntity,
  AdminAuditEntity,
  OrderEntity,
  AlgoOrderEntity,
  TradeEntity,
  IncomeEntity,
  ForceOrderEntity,
  InsuranceMovementEntity,
  MarketTradeEntity,
  MarketAggTradeEntity,
  MarketCandleEntity,
  MarketTickerMinuteEntity,
  MarketStatisticEntity,
  MarketPositionEntity,
  FundingRateEntity,
  MarketBookEntity,
  MarketBookLevelEntity,
  MarketAdlQuantilesEntity,
  MarketPriceEntity,
  ListenKeyEntity,
];
