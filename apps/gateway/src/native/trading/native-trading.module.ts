import { Module } from '@nestjs/common';
import { FapiAccountModule } from '../../fapi/account/fapi-account.module';
import { FapiMarketModule } from '../../fapi/market/fapi-market.module';
import { FapiMarketStatsModule } from '../../fapi/market-stats/market-stats.module';
import { RiskClientModule } from '../../risk/risk-client.module';
import { NativeAccountController } from './native-account.controller';
import { NativeOrdersController } from './native-orders.controller';
import { OpenInterestController } from './open-interest.controller';
import { AlgoOrderReader } from '../../fapi/orders/algo-order-reader';
import { OrderLookup } from './order-lookup';

/**
 * Native trading and account (issue #7): orders, account, margin mode, isolated collateral and
 * open interest. Reads the live account through FAPI's AccountReader; writes go to the user's
 * risk shard through RiskClient. Needs the root's global Runtime, Persistence, Cache and Bus.
 */
@Module({
  imports: [FapiAccountModule, FapiMarketModule, FapiMarketStatsModule, RiskClientModule],
  controllers: [NativeOrdersController, NativeAccountController, OpenInterestController],
  providers: [OrderLookup, AlgoOrderReader],
})
export class NativeTradingModule {}
