import { AdminAuditEntity } from './admin-audit.entity';
import { ApiKeyEntity } from './api-key.entity';
import { EngineSnapshotEntity } from './engine-snapshot.entity';
import { IncomeEntity } from './income.entity';
import { OrderEntity } from './order.entity';
import { ProcessedOffsetEntity } from './processed-offset.entity';
import { TradeEntity } from './trade.entity';
import { UserEntity } from './user.entity';

export * from './admin-audit.entity';
export * from './api-key.entity';
export * from './engine-snapshot.entity';
export * from './income.entity';
export * from './order.entity';
export * from './processed-offset.entity';
export * from './trade.entity';
export * from './user.entity';

export const ENTITIES = [
  UserEntity,
  ApiKeyEntity,
  EngineSnapshotEntity,
  ProcessedOffsetEntity,
  AdminAuditEntity,
  OrderEntity,
  TradeEntity,
  IncomeEntity,
];
