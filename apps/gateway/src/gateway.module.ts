import { Module } from '@nestjs/common';
import { ApiAccessModule } from './access';
import { AdminAccountsController } from './admin/admin-accounts.controller';
import { AdminLiquidationController } from './admin/admin-liquidation.controller';
import { AdminMarketsController } from './admin/admin-markets.controller';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { SolvencyReader } from './admin/solvency-reader';
import { FapiAccountModule } from './fapi/account/fapi-account.module';
import { FapiGeneralController } from './fapi/fapi-general.controller';
import { PublicReadLanes } from './fapi/lanes/public-read-lanes';
import { SignedOrderLanes } from './fapi/lanes/signed-order-lanes';
import { FapiMarketModule } from './fapi/market/fapi-market.module';
import { FapiMarketStatsModule } from './fapi/market-stats/market-stats.module';
import { FapiAlgoOrdersController } from './fapi/orders/fapi-algo-orders.controller';
import { AlgoOrderReader } from './fapi/orders/algo-order-reader';
import { FapiOrdersController } from './fapi/orders/fapi-orders.controller';
import { NativeAdlController, NativeAdlHistoryController } from './native/adl.controller';
import { NativeFundingRatesController } from './native/funding-rates.controller';
import { NativeMarketsController } from './native/markets.controller';
import { OpenApiModule } from './openapi/openapi.module';
import { NativeTradingModule } from './native/trading/native-trading.module';
import { RiskClientModule } from './risk/risk-client.module';
import { RateLimitsModule } from './rate-limits';
import { StreamsModule } from './streams/streams.module';

/** The HTTP edge: FAPI and native API. */
@Module({
  imports: [
    ApiAccessModule.forRoot(),
    RateLimitsModule,
    RiskClientModule,
    FapiAccountModule,
    FapiMarketModule,
    FapiMarketStatsModule,
    NativeTradingModule,
    OpenApiModule,
    StreamsModule,
  ],
  controllers: [
    FapiGeneralController,
    NativeMarketsController,
    NativeFundingRatesController,
    NativeAdlController,
    NativeAdlHistoryController,
    AdminMarketsController,
    AdminAccountsController,
    AdminLiquidationController,
    FapiOrdersController,
    FapiAlgoOrdersController,
  ],
  providers: [AdminTokenGuard, AlgoOrderReader, SolvencyReader, PublicReadLanes, SignedOrderLanes],
})
export class GatewayModule {}
