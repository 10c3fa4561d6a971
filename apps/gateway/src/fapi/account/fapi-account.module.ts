import { Module } from '@nestjs/common';
import { AccountHistory } from './account-history';
import { HistoryFreshness } from './history-freshness';
import { AccountReader } from './account-reader';
import { FapiAccountConfigController } from './fapi-account-config.controller';
import { FapiAccountHistoryController } from './fapi-account-history.controller';
import { FapiAccountController } from './fapi-account.controller';
import { FapiLiquidationController } from './fapi-liquidation.controller';
import { FapiListenKeyController } from './fapi-listen-key.controller';
import { FapiOrdersQueryController } from './fapi-orders-query.controller';
import { FapiReservedController } from './fapi-reserved.controller';
import { ListenKeys } from './listen-keys';
import { UserStreamGuard } from './user-stream.guard';

/**
 * FAPI account reads: balances, account, account and symbol configuration, position risk,
 * brackets, commission, order queries, trade/income history, force orders and ADL quantiles, listen keys, and the reserved paths.
 * Needs the global RuntimeModule, PersistenceModule, CacheModule and ApiAccessModule of the root
 * module.
 */
@Module({
  controllers: [
    FapiAccountController,
    FapiAccountConfigController,
    FapiOrdersQueryController,
    FapiAccountHistoryController,
    FapiLiquidationController,
    FapiListenKeyController,
    FapiReservedController,
  ],
  providers: [AccountReader, AccountHistory, HistoryFreshness, ListenKeys, UserStreamGuard],
  exports: [AccountReader, ListenKeys, HistoryFreshness],
})
export class FapiAccountModule {}
